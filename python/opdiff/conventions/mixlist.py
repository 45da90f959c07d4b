"""The mixed-precision lists of ATC's ``allow_mix_precision`` (``--precision_mode allow_mix_precision``
or ``--precision_mode_v2 mixed_float16``): which Ascend IR op types may drop to fp16.

Every op type is on one of three lists:

* the white list (``"flag": "true"``): the op may run in fp16;
* the black list (``"flag": "false"``): the op keeps fp32;
* the gray list (no flag, and every type no file names): the op follows the op upstream of it.

Two files say it, both JSON:

* CANN's per-SoC ops-info file (``opp/built-in/op_impl/ai_core/tbe/config/<soc>/aic-<soc>-ops-info.json``):
  one object per op type, the list in ``"precision_reduce": {"flag": "true" | "false"}``;
* a ``--modify_mixlist`` file: ``{"black-list": {"to-add": [...], "to-remove": [...]}, "white-list": {...}}``.
  ``to-add`` moves a type onto that list (off the others), ``to-remove`` moves a type that is on it
  to the gray list.

:func:`read_mixlists` applies files in the order given, from every type gray: an ops-info file
first, then the modify files, as ATC applies ``--modify_mixlist`` to its built-in lists.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Union

MODIFY_KEYS = {"black-list": "black", "white-list": "white"}


class MixList(str, Enum):
    """The list an op type is on."""

    WHITE = "white"
    BLACK = "black"
    GRAY = "gray"


@dataclass(frozen=True)
class MixLists:
    """Each op type named by a file and its list; a type not named is gray."""

    lists: Mapping[str, MixList]

    def of(self, op_type: str) -> MixList:
        """The list `op_type` is on.

        >>> MixLists({"Conv2D": MixList.WHITE}).of("Conv2D"), MixLists({}).of("Exp")
        (<MixList.WHITE: 'white'>, <MixList.GRAY: 'gray'>)
        """
        return self.lists.get(op_type, MixList.GRAY)

    def types_on(self, which: MixList) -> List[str]:
        return sorted(t for t, on in self.lists.items() if on is which)


def apply_ops_info(lists: Dict[str, MixList], data: Mapping[str, object], source: str) -> None:
    """Sets `lists` from an ops-info file's `data` (types without a flag become gray); ValueError
    naming `source` when an entry is not an object or a flag is neither "true" nor "false".

    >>> lists = {}
    >>> apply_ops_info(lists, {"Conv2D": {"precision_reduce": {"flag": "true"}}, "Exp": {}}, "f.json")
    >>> lists
    {'Conv2D': <MixList.WHITE: 'white'>, 'Exp': <MixList.GRAY: 'gray'>}
    """
    for op_type, entry in data.items():
        if not isinstance(entry, dict):
            raise ValueError(f"{source}: the entry of op type {op_type!r} is not an object")
        reduce = entry.get("precision_reduce")
        flag = reduce.get("flag") if isinstance(reduce, dict) else None
        if flag is None:
            lists[op_type] = MixList.GRAY
        elif str(flag).lower() in ("true", "false"):
            lists[op_type] = MixList.WHITE if str(flag).lower() == "true" else MixList.BLACK
        else:
            raise ValueError(f"{source}: op type {op_type!r} has precision_reduce flag {flag!r} (want \"true\" or \"false\")")


def apply_modify_mixlist(lists: Dict[str, MixList], data: Mapping[str, object], source: str) -> None:
    """Applies a modify_mixlist file's `data` to `lists`; ValueError naming `source` for a key
    that is not a list, or a move that is not a list of type names.

    >>> lists = {"Exp": MixList.WHITE}
    >>> apply_modify_mixlist(lists, {"black-list": {"to-add": ["Exp"]}, "white-list": {"to-remove": ["Mul"]}}, "m.json")
    >>> lists
    {'Exp': <MixList.BLACK: 'black'>}
    """
    for key, moves in data.items():
        if key not in MODIFY_KEYS:
            raise ValueError(f"{source}: {key!r} is not a list of a modify_mixlist file (black-list, white-list)")
        if not isinstance(moves, dict) or set(moves) - {"to-add", "to-remove"}:
            raise ValueError(f"{source}: {key} wants an object of \"to-add\" and \"to-remove\" lists")
        target = MixList(MODIFY_KEYS[key])
        for move, types in moves.items():
            if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
                raise ValueError(f"{source}: {key}.{move} is not a list of op type names")
            for op_type in types:
                if move == "to-add":
                    lists[op_type] = target
                elif lists.get(op_type) is target:
                    lists[op_type] = MixList.GRAY


def read_mixlists(paths: Iterable[Union[str, Path]]) -> MixLists:
    """The lists that the files at `paths` give, applied in order (see the module notes); ValueError
    naming the file that is not JSON or neither kind, OSError when one cannot be read."""
    lists: Dict[str, MixList] = {}
    for path in paths:
        source = str(path)
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise ValueError(f"{source}: not JSON ({error})") from None
        if not isinstance(data, dict):
            raise ValueError(f"{source}: a mixlist file holds one JSON object")
        if set(data) & set(MODIFY_KEYS):
            apply_modify_mixlist(lists, data, source)
        else:
            apply_ops_info(lists, data, source)
    return MixLists(lists)

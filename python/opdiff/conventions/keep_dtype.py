"""ATC's ``--keep_dtype`` file (keep_dtype.cfg): the ops a model compiled with
``--precision_mode force_fp16`` or ``allow_mix_precision`` keeps in their original precision.

One entry per line: the original model's op name (``fp32_vars/Relu``), or ``OpType::NAME`` for every
op of a type (on the device an Ascend IR type; read by dump-onnx as the ONNX op type NAME). Blank
lines are ignored; surrounding spaces are not part of an entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Tuple, Union

OP_TYPE_PREFIX = "OpType::"


@dataclass(frozen=True)
class KeepList:
    """The entries of a keep_dtype file: op names and op types, each in file order, once."""

    names: Tuple[str, ...] = ()
    types: Tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.names and not self.types

    def text(self) -> str:
        """The file's text: the names, then the ``OpType::`` lines, one a line.

        >>> print(KeepList(("fc/MatMul",), ("Softmax",)).text(), end="")
        fc/MatMul
        OpType::Softmax
        """
        lines = list(self.names) + [OP_TYPE_PREFIX + name for name in self.types]
        return "".join(line + "\n" for line in lines)


def parse_keep_dtype(text: str) -> KeepList:
    """The entries of a keep_dtype file's `text`.

    >>> parse_keep_dtype("conv1\\n\\n  OpType::Softmax \\nconv1\\n")
    KeepList(names=('conv1',), types=('Softmax',))
    """
    names: list[str] = []
    types: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith(OP_TYPE_PREFIX):
            entry, bucket = line[len(OP_TYPE_PREFIX):].strip(), types
        else:
            entry, bucket = line, names
        if entry and entry not in bucket:
            bucket.append(entry)
    return KeepList(tuple(names), tuple(types))


def read_keep_dtype(path: Union[str, Path]) -> KeepList:
    """The entries of the keep_dtype file at `path` (OSError when it cannot be read)."""
    return parse_keep_dtype(Path(path).read_text(encoding="utf-8"))


def keep_list(names: Iterable[str] = (), types: Iterable[str] = ()) -> KeepList:
    """A KeepList of `names` and `types`, each once, in the order given."""
    return KeepList(tuple(dict.fromkeys(names)), tuple(dict.fromkeys(types)))


def skip_layers_text(names: Iterable[str]) -> str:
    """The ``skip_layers`` lines of AMCT's simplified quantization config for `names`.

    >>> print(skip_layers_text(["conv1"]), end="")
    skip_layers : "conv1"
    """
    return "".join(f'skip_layers : "{name}"\n' for name in dict.fromkeys(names))


def parse_skip_layers(text: str) -> Tuple[str, ...]:
    """The layer names of a skip list: ``skip_layers : "NAME"`` lines (AMCT's simplified config;
    its other fields are ignored), or bare names one a line.

    >>> parse_skip_layers('batch_num : 2\\nskip_layers : "conv1"\\nconv2\\n')
    ('conv1', 'conv2')
    """
    names: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        key, colon, value = line.partition(":")
        if colon and key.strip() == "skip_layers":
            line = value.strip().strip('"')
        elif colon and not line.startswith('"'):
            continue  # another field of the config (batch_num : 2)
        if line and line not in names:
            names.append(line)
    return tuple(names)

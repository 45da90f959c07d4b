"""`CompareOptions`: everything a comparison is told besides the two dump folders, declared once.

`opdiff.compare`, the many-run job (`opdiff.runs`), the engine and ``--isolate`` all take this one
object; the CLI builds it from its argument groups (commands/args/), and `compare()`'s keyword
arguments are a thin front over it. Each default lives here and nowhere else."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any, Optional, Tuple, Union

from opdiff.graph import FusionMap
from opdiff.match.id_selection import IdSelection
from opdiff.match.planning import RuleLike, read_rule
from opdiff.numerics.core import DEFAULT_ATOL, DEFAULT_RTOL, tolerances
from opdiff.numerics.schema import ALGORITHMS
from opdiff.plugins import Plugins, parse_algorithm_options, read_plugins

PathLike = Union[str, "os.PathLike[str]"]
# Fusion-rule op ids: the ids themselves, or -r/-s as given, resolved against each run's own rule
IdsLike = Union[Tuple[int, ...], IdSelection, None]


@dataclass(frozen=True)
class CompareOptions:
    """How two dump folders are compared (the flags of ``opdiff compare``).

    Rules are .om files, atc JSON files, GE graph dumps or FusionMap objects (many runs also take a
    folder of rules for ``fusion_rule`` and ``close_fusion_rule``).

    >>> from opdiff.engine.options import CompareOptions
    >>> options = CompareOptions(algorithms=("CosineSimilarity",), threads=2)
    >>> options.rtol == CompareOptions().rtol, options.replace(threads=None).threads is None
    (True, True)
    """

    fusion_rule: RuleLike = None  # -f: the NPU model
    close_fusion_rule: RuleLike = None  # -cf: the fusion-off model, with -f
    quant_fusion_rule: RuleLike = None  # -q: the quantization fusion rule
    ids: IdsLike = None  # -r / -s: which fusion-rule op ids are compared (None: all)
    step: Optional[int] = None  # --step: which dump step a folder of several gives (None: the last)
    all_occurrences: bool = False  # --all: every dump of an op, not only the newest
    ffts: bool = False  # -ffts: FFTS+ manual-mode slices compared slice by slice, without joining them
    algorithms: Tuple[str, ...] = tuple(ALGORITHMS)  # -alg
    rtol: float = DEFAULT_RTOL  # AllClose's relative tolerance
    atol: float = DEFAULT_ATOL  # AllClose's absolute tolerance
    overflow_detection: bool = False  # -overflow_detection: the OverFlow column
    max_elements: int = 0  # -max N: compare only the first N elements against a golden (0 = all)
    threads: Optional[int] = None  # --threads: tensor pairs compared at once (None: every core)
    progress: bool = False  # --progress: a progress bar on the terminal
    csv: Optional[PathLike] = None  # write the rows to this CSV as they come
    mapping_only: bool = False  # -map: plan and list each tensor's files, compare nothing
    # -c DIR: custom algorithms (selected by name in `algorithms`) and format converters; a folder is
    # read into memory here, so that it travels with the options (docs/plugins.md)
    plugins: Union[Plugins, PathLike, None] = None
    algorithm_options: str = ""  # -a "Name:param=value,param2=value;Name2:param=value"

    def __post_init__(self) -> None:
        if self.max_elements < 0:
            raise ValueError(f"max_elements (-max) wants a count >= 0 (0 compares every element), got {self.max_elements}")
        if self.threads is not None and self.threads < 0:
            raise ValueError(f"--threads wants a count >= 1 (or 0: every core), got {self.threads}")
        if self.close_fusion_rule is not None and self.fusion_rule is None:
            raise ValueError("-cf needs -f (the fusion-on model)")
        if isinstance(self.ids, IdSelection) and self.fusion_rule is None:
            self.ids.resolve(None)  # its own error: -r and -s need -f
        tolerances(self.rtol, self.atol)  # ValueError for a negative one, as the metrics functions say
        if self.plugins is not None and not isinstance(self.plugins, Plugins):
            object.__setattr__(self, "plugins", read_plugins(self.plugins))  # PluginError (a ValueError)
        parse_algorithm_options(self.algorithm_options)
        offered = self.plugin_set.algorithm_names if self.plugin_set is not None else ()
        unknown = [name for name in self.algorithms if name not in ALGORITHMS and name not in offered]
        if unknown:
            raise ValueError(f"unknown algorithm {unknown[0]!r}; known: {', '.join(ALGORITHMS + offered)}")

    @property
    def plugin_set(self) -> Optional[Plugins]:
        """The plug-ins (-c) as read; None without them."""
        return self.plugins if isinstance(self.plugins, Plugins) else None

    @property
    def builtin_algorithms(self) -> Tuple[str, ...]:
        """The selected algorithms opdiff computes itself (the core's metrics)."""
        return tuple(name for name in self.algorithms if name in ALGORITHMS)

    @property
    def custom_algorithms(self) -> Tuple[str, ...]:
        """The selected plug-in algorithms, in the order -alg names them."""
        return tuple(name for name in self.algorithms if name not in ALGORITHMS)

    def replace(self, **changes: Any) -> CompareOptions:
        """These options with some fields changed (a TypeError names an unknown field)."""
        return dataclasses.replace(self, **changes)

    def read_rules(self) -> ReadRules:
        """The rules read from their files, and the op ids they select; ValueError or
        GraphFormatError naming a file that cannot be read."""
        fusion = read_rule(self.fusion_rule)
        return ReadRules(fusion, read_rule(self.close_fusion_rule), read_rule(self.quant_fusion_rule),
                         self.ids_for(fusion))

    def with_rules(self, rules: ReadRules) -> CompareOptions:
        """These options with `rules` (as :meth:`read_rules` read them) in place of the files, so
        that what follows reads each file once."""
        return self.replace(fusion_rule=rules.fusion, close_fusion_rule=rules.close, quant_fusion_rule=rules.quant,
                            ids=rules.ids)

    def ids_for(self, fusion_rule: Optional[FusionMap]) -> Optional[Tuple[int, ...]]:
        """The op ids to compare with `fusion_rule` (-r/-s resolved against it); None: every op."""
        if isinstance(self.ids, IdSelection):
            return self.ids.resolve(fusion_rule)
        return tuple(self.ids) if self.ids is not None else None


@dataclass(frozen=True)
class ReadRules:
    """A comparison's rules as read, and the op ids they select (None: every op)."""

    fusion: Optional[FusionMap]
    close: Optional[FusionMap]
    quant: Optional[FusionMap]
    ids: Optional[Tuple[int, ...]]

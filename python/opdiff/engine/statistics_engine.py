"""The statistics engine: turns op plans into StatisticsRows. Either side of a pair may be a
statistics CSV (read as it is), a full NPU dump or a golden .npy (its statistics computed by the
core in one pass: over the stored elements of a dump, padding included, as the device takes them;
over the logical array of a .npy).

Padding. The device's statistics cover its stored elements: NC1HWC0 with C not a multiple of C0,
FRACTAL_NZ tiles and the other padded layouts add zeros. Against a side with fewer elements (a
logical golden .npy), that side's statistics are computed the way the device would have taken them
over the padded tensor: ``z`` = the element counts' difference zeros are added, so max becomes
max(max, 0), min becomes min(min, 0) and mean becomes mean * n / (n + z). A clean padded tensor then
matches. Counts that differ where my side's layout has no padding are a row saying so.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Dict, Iterator, List, Optional, Tuple, Union

from opdiff.dumps import DumpFormatError, read_dump, tensor_stats
from opdiff.dumps.reader import DumpFile, DumpTensor
from opdiff.dumps.statistics import StatisticsFile, StatisticsFormatError, TensorStatistics, read_many_statistics, read_statistics
from opdiff.match.op_matching import GoldenTarget, OpPlan
from opdiff.numerics.frozen import build_frozen
from opdiff.results.rows import TensorId
from opdiff.results.statistics_rows import StatisticsDifferences, StatisticsRow

#: Stored layouts that pad the logical tensor with zeros (the device's statistics count them).
PADDED_FORMATS = frozenset({
    "NC1HWC0", "NC1HWC0_C04", "NDC1HWC0", "C1HWNCoC0", "FRACTAL_Z", "FRACTAL_Z_3D", "FRACTAL_NZ", "FRACTAL_ZN_LSTM",
})
_CACHE_LIMIT = 4096  # partner files kept (a golden output feeding several consumers is read once)
_BATCH = 4096  # plans whose statistics files are read in one call to the core

Lookup = Union[TensorStatistics, str]  # the statistics, or why there are none


def statistics_of_tensor(tensor: DumpTensor, *, stored: bool) -> TensorStatistics:
    """A dump (or .npy) tensor's statistics from the core, one pass: over its stored elements
    (what the device's statistics cover) or its logical ones."""
    view = tensor.view(as_stored=True) if stored else tensor.view()
    side = tensor_stats(view, threads=1)
    shape = tuple(view.shape)
    return TensorStatistics(tensor.role.value, tensor.index, tensor.data_type_name, tensor.format_name if stored else "ND",
                            shape, math.prod(shape), side.max, side.min, side.mean, side.nan, side.neg_inf, side.pos_inf,
                            tensor.size)


def with_padding(golden: TensorStatistics, zeros: int) -> TensorStatistics:
    """The statistics of `golden` with `zeros` zero elements added (its ``count`` stays its own).

    >>> g = TensorStatistics("output", 0, "DT_FLOAT", "ND", (3,), 3, 3.0, 1.0, 2.0, 0, 0, 0)
    >>> p = with_padding(g, 13)
    >>> p.max, p.min, p.mean
    (3.0, 0.0, 0.375)
    """
    if zeros <= 0:
        return golden
    total = golden.count + zeros
    return replace(golden, max=golden.max if golden.max >= 0 or math.isnan(golden.max) else 0.0,
                   min=golden.min if golden.min <= 0 or math.isnan(golden.min) else 0.0,
                   mean=golden.mean * golden.count / total)


class _Source:
    """One side's file: a statistics CSV, a full dump or a .npy, read once; statistics by tensor."""

    def __init__(self, path: str, read: Optional[Union[StatisticsFile, StatisticsFormatError]] = None) -> None:
        """`read`: the file's statistics already read (read_many_statistics), or the error doing so."""
        self.path = path
        self.error: Optional[str] = None
        self.statistics: Optional[StatisticsFile] = None
        self.dump: Optional[DumpFile] = None
        self._computed: Dict[Tuple[str, int], Lookup] = {}
        try:
            if isinstance(read, Exception):
                raise read
            if read is not None:
                self.statistics = read
            elif path.endswith(".csv"):
                self.statistics = read_statistics(path)
            else:
                self.dump = read_dump(path)
        except (StatisticsFormatError, DumpFormatError, OSError) as error:
            self.error = str(error)

    @property
    def notes(self) -> List[str]:
        return self.statistics.notes if self.statistics is not None else []

    def entries(self) -> List[Tuple[str, int]]:
        if self.statistics is not None:
            return self.statistics.entries()
        if self.dump is not None:
            return [("input", t.index) for t in self.dump.inputs] + [("output", t.index) for t in self.dump.outputs]
        return []

    def lookup(self, role: str, index: int) -> Lookup:
        if self.error is not None:
            return self.error
        if self.statistics is not None:
            found = self.statistics.tensor(role, index)
            return found if found is not None else self.statistics.missing_reason(role, index)
        key = (role, index)
        if key not in self._computed:
            self._computed[key] = self._compute(role, index)
        return self._computed[key]

    def _compute(self, role: str, index: int) -> Lookup:
        assert self.dump is not None
        try:
            tensor = self.dump.tensor(role, index)
            return statistics_of_tensor(tensor, stored=not self.path.endswith(".npy"))
        except (DumpFormatError, ValueError, OSError) as error:
            return f"{self.path}: {role} {index}: {error}"


def align(my: TensorStatistics, golden: TensorStatistics) -> Tuple[Optional[TensorStatistics], int, Optional[str]]:
    """(the golden's statistics as my side's layout would have them, the zeros added, or a reason)."""
    if my.count == golden.count:
        return golden, 0, None
    if my.count > golden.count and my.format in PADDED_FORMATS:
        return with_padding(golden, my.count - golden.count), my.count - golden.count, None
    return None, 0, (f"the element counts differ: {my.count} on my side ({my.format} {list(my.shape)}), {golden.count} on "
                     f"the golden side ({golden.format} {list(golden.shape)}); only my side's layout padding is accounted for")


class StatisticsEngine:
    """Runs plans into rows, in plan order; one instance per comparison (it caches partner files)."""

    def __init__(self) -> None:
        self.notes: List[str] = []  # lines of statistics files that name no tensor
        self._partners: Dict[str, _Source] = {}

    def rows(self, plans: List[OpPlan]) -> Iterator[StatisticsRow]:
        """Rows of every plan, in plan order. The statistics CSVs of each batch of plans (my files and
        NPU-vs-NPU partners) are read at once by the core, on every core."""
        for start in range(0, len(plans), _BATCH):
            batch = plans[start : start + _BATCH]
            paths = [path for plan in batch for path in (plan.my_path, plan.positional_partner)
                     if path is not None and path.endswith(".csv")]
            read = dict(zip(paths, read_many_statistics(paths)))
            for plan in batch:
                yield from self.plan_rows(plan, read)

    def _partner(self, path: str) -> _Source:
        source = self._partners.get(path)
        if source is None:
            if len(self._partners) >= _CACHE_LIMIT:
                self._partners.pop(next(iter(self._partners)))
            source = self._partners[path] = self._note(_Source(path))
        return source

    def _note(self, source: _Source) -> _Source:
        self.notes.extend(source.notes)
        return source

    def plan_rows(self, plan: OpPlan, read: Optional[Dict[str, Union[StatisticsFile, StatisticsFormatError]]] = None) -> List[StatisticsRow]:
        """The rows of one op: one per tensor of my file (or one saying why there are none);
        `read` holds statistics files already read, by path."""
        read = read or {}
        if plan.my_path is None:
            return [_row(plan, plan.tensor(), reasons=plan.missing_reasons)]
        mine = self._note(_Source(plan.my_path, read.get(plan.my_path)))
        if mine.error is not None:
            return [_row(plan, plan.tensor(), reasons=(f"[{plan.label}] {mine.error}",))]
        # NPU vs NPU every tensor's partner is the same role and index in one file: read it once.
        partner = None
        if plan.positional_partner is not None:
            partner = self._note(_Source(plan.positional_partner, read.get(plan.positional_partner)))
        rows = []
        for role, k in mine.entries():
            identity = plan.tensor(role, k)
            found = mine.lookup(role, k)
            if partner is not None:
                if isinstance(found, str):
                    rows.append(_row(plan, identity, reasons=(found,), my_source=plan.my_path))
                else:
                    rows.append(self._pair_row(plan, identity, found, partner.lookup(role, k), partner.path))
                continue
            target: GoldenTarget = plan.input_target(k) if role == "input" else plan.output_target(k)
            if target.skip:
                continue
            if isinstance(found, str):
                rows.append(_row(plan, identity, reasons=(found,), my_source=plan.my_path))
            elif target.path is None:
                rows.append(_row(plan, identity, my=found, reasons=(target.reason or "no partner",), my_source=plan.my_path))
            else:
                rows.append(self._pair_row(plan, identity, found, self._partner(target.path).lookup(target.role, target.index),
                                           target.path))
        if not rows:
            return [_row(plan, plan.tensor(), reasons=(f"[{plan.label}] {plan.my_path}: holds no tensor to compare",))]
        return rows

    @staticmethod
    def _pair_row(plan: OpPlan, identity: TensorId, mine: TensorStatistics, theirs: Lookup, golden_path: str) -> StatisticsRow:
        fields = {"my": mine, "my_source": plan.my_path or "", "golden_source": golden_path}
        if isinstance(theirs, str):
            return _row(plan, identity, reasons=(theirs,), **fields)
        golden, padding, reason = align(mine, theirs)
        if golden is None:
            return _row(plan, identity, golden=theirs, reasons=(f"[{plan.label}] {reason}",), **fields)
        return _row(plan, identity, golden=golden, padding=padding, differences=StatisticsDifferences.between(mine, golden),
                    **fields)


_ROW_DEFAULTS = {"my": None, "golden": None, "padding": 0, "differences": None, "reasons": (), "my_source": "", "golden_source": ""}


def _row(plan: OpPlan, identity: TensorId, **fields: object) -> StatisticsRow:
    # Built from its field dict (opdiff.numerics.frozen): a big run makes 200,000 rows.
    return build_frozen(StatisticsRow, {
        **_ROW_DEFAULTS, "index": plan.index, "op_type": plan.op_type, "npu_dump": plan.npu_dump,
        "ground_truth": plan.ground_truth, "tensor": identity, "op_sequence": plan.op_sequence, **fields})


__all__ = ["PADDED_FORMATS", "StatisticsEngine", "align", "statistics_of_tensor", "with_padding"]

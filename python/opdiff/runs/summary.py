"""Builds the RunsSummary as runs finish: each Report is folded in (its entry and its tensors'
verdict metrics) and then dropped, so the client holds numbers, not rows, of finished runs."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from opdiff.numerics.schema import HIGHER_IS_BETTER, METRIC_FIELDS, NORM_RATIO_ERROR
from opdiff.results.runs_summary import (
    Cell,
    FirstFailure,
    JobEnd,
    MetricSpread,
    RunEntry,
    RunsSummary,
    RunStatus,
    TensorAcrossRuns,
)
from opdiff.results.verdict import ThresholdVerdict, Verdict
from opdiff.runs.tree import RunKey

if TYPE_CHECKING:
    from opdiff.results.rows import CompareRow
    from opdiff.results.tensor_report import Report

DEFAULT_METRICS = ("CosineSimilarity", NORM_RATIO_ERROR)


def verdict_metrics(verdict: Optional[Verdict]) -> Tuple[str, ...]:
    """The metrics a verdict judges by: its limits' metrics, or the default verdict's two."""
    if isinstance(verdict, ThresholdVerdict):
        return tuple(dict.fromkeys(t.metric for t in verdict.thresholds))
    return DEFAULT_METRICS


@dataclass
class _Tensor:
    op: str
    op_type: str
    values: Dict[str, List[float]] = field(default_factory=dict)
    failing_runs: List[str] = field(default_factory=list)
    first_failure_in: List[str] = field(default_factory=list)
    cells: Dict[str, Cell] = field(default_factory=dict)


@dataclass
class SummaryBuilder:
    my: str
    golden: str
    verdict: Optional[Verdict] = None  # None: each run's default verdict, fitted to its rows
    entries: Dict[RunKey, RunEntry] = field(default_factory=dict)
    _tensors: Dict[str, _Tensor] = field(default_factory=dict)

    @property
    def metrics(self) -> Tuple[str, ...]:
        return verdict_metrics(self.verdict)

    def add_report(self, key: RunKey, report: Report, csv: Optional[Path], location: str,
                   files: Optional[Dict[str, Path]] = None) -> RunEntry:
        judge = report.verdict(self.verdict)
        label = key.label
        compared = report.compared
        failed = [row for row in report.rows if judge.fails(row)]
        first = failed[0] if failed else None
        entry = RunEntry(key.device, key.model, key.step, RunStatus.COMPARED, csv, len(compared), len(failed),
                         FirstFailure(first.npu_dump, first.tensor_index) if first is not None else None,
                         location=location, my=str(report.my_folder), golden=str(report.golden_folder),
                         files=dict(files or {}))
        self.entries[key] = entry
        failing_ids = {id(row) for row in failed}
        for row in compared:
            self._add_row(label, row, id(row) in failing_ids, row is first)
        return entry

    def _add_row(self, label: str, row: CompareRow, failed: bool, first: bool) -> None:
        tensor = self._tensors.setdefault(row.tensor_index, _Tensor(row.npu_dump, row.op_type))
        assert row.metrics is not None
        values = [float(getattr(row.metrics, METRIC_FIELDS[metric])) for metric in self.metrics]
        for metric, value in zip(self.metrics, values):
            tensor.values.setdefault(metric, []).append(value)
        tensor.cells[label] = Cell(values[0], failed)
        if failed:
            tensor.failing_runs.append(label)
        if first:
            tensor.first_failure_in.append(label)

    def add_mapping(self, key: RunKey, path: Path, location: str) -> RunEntry:
        """-map: the run's mapping CSV, nothing compared."""
        entry = RunEntry(key.device, key.model, key.step, RunStatus.MAPPED, location=location, files={"mapping": path})
        self.entries[key] = entry
        return entry

    def add_not_compared(self, key: RunKey, reason: str, status: RunStatus = RunStatus.NOT_COMPARED,
                         location: str = "") -> RunEntry:
        entry = RunEntry(key.device, key.model, key.step, status, reason=reason, location=location)
        self.entries[key] = entry
        return entry

    def build(self, end: JobEnd, stopped_by: Optional[str], verdict_name: str) -> RunsSummary:
        tensors = [TensorAcrossRuns(name, t.op, t.op_type,
                                    [_spread(metric, t.values.get(metric, [])) for metric in self.metrics],
                                    t.failing_runs, t.first_failure_in, t.cells)
                   for name, t in self._tensors.items()]
        runs = [self.entries[key] for key in sorted(self.entries)]
        return RunsSummary(runs, tensors, self.metrics, verdict_name, self.my, self.golden, end, stopped_by)


def _badness(metric: str, value: float) -> float:
    """Larger is worse; NaN worst of all."""
    if math.isnan(value):
        return math.inf
    return -value if metric in HIGHER_IS_BETTER else value


def _spread(metric: str, values: List[float]) -> MetricSpread:
    if not values:
        return MetricSpread(metric, math.nan, math.nan, math.nan)
    ordered = sorted(values, key=lambda value: _badness(metric, value), reverse=True)
    finite = [value for value in values if not math.isnan(value)]
    return MetricSpread(metric, ordered[0], statistics.median(finite) if finite else math.nan, ordered[-1])

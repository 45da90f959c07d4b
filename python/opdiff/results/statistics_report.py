"""The result of a comparison where one side (or both) holds statistics dumps: its rows in Index
order, what produced them, and their verdict. ``opdiff.compare`` returns one when discovery finds
statistics CSVs on a side (opdiff.demo.statistics_network shows one).

>>> report = StatisticsReport(Scenario.NPU_VS_GOLDEN, Path("npu"), Path("golden"))
>>> report.summary()["rows"], report.first_failure() is None
(0, True)
"""

from __future__ import annotations

import heapq
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Protocol, Union

from rich.console import Group, RenderableType

from opdiff.results.protocol import ResultFamily, no_views, summary_counts
from opdiff.results.scenario import Scenario
from opdiff.results.statistics_rows import StatisticsRow
from opdiff.results.statistics_verdict import StatisticsVerdict

PathLike = Union[str, "os.PathLike[str]"]


class StatisticsViews(Protocol):
    """How a StatisticsReport shows itself and writes its CSV (report/statistics/views.py)."""

    def console(self, report: StatisticsReport, verdict: StatisticsVerdict, csv_path: Optional[str]) -> List[RenderableType]: ...

    def write_csv(self, report: StatisticsReport, path: Path, verdict: StatisticsVerdict) -> Path: ...


@dataclass
class StatisticsReport:
    """The rows of a statistics comparison (in Index order) and what produced them."""

    scenario: Scenario
    my_folder: Path
    golden_folder: Path
    rows: List[StatisticsRow] = field(default_factory=list)
    complete: bool = True
    notes: List[str] = field(default_factory=list)
    csv_path: Optional[Path] = None
    quantized: bool = False  # my side is a quantized model (the precision rows' int8 row)
    # how it shows itself and writes its CSV (report/statistics/views.py); opdiff.compare hands these over
    views: Optional[StatisticsViews] = field(default=None, repr=False, compare=False)

    @property
    def family(self) -> ResultFamily:
        return ResultFamily.STATISTICS

    @property
    def compared(self) -> List[StatisticsRow]:
        return [row for row in self.rows if row.compared]

    def verdict(self, verdict: Optional[StatisticsVerdict] = None) -> StatisticsVerdict:
        """`verdict` itself; None gives the default one, with the precision rows the tensor verdict
        would take for this scenario."""
        return verdict if verdict is not None else StatisticsVerdict(npu_vs_npu=self.scenario.both_npu, quantized=self.quantized)

    def failing(self, verdict: Optional[StatisticsVerdict] = None) -> List[StatisticsRow]:
        """Rows the verdict fails, in Index (execution) order."""
        judge = self.verdict(verdict)
        return [row for row in self.rows if judge.fails(row)]

    def first_failure(self, verdict: Optional[StatisticsVerdict] = None) -> Optional[StatisticsRow]:
        judge = self.verdict(verdict)
        return next((row for row in self.rows if judge.fails(row)), None)

    def worst(self, count: int = 10) -> List[StatisticsRow]:
        """The compared rows with the largest normalised difference of max, min or mean."""

        def key(row: StatisticsRow) -> float:
            assert row.differences is not None
            worst = row.differences.worst_norm
            return math.inf if worst != worst else worst

        return heapq.nlargest(count, self.compared, key=key)

    def summary(self, verdict: Optional[StatisticsVerdict] = None) -> Dict[str, int]:
        return summary_counts(len(self.rows), len(self.compared), len(self.failing(verdict)))

    def to_csv(self, path: PathLike, verdict: Optional[StatisticsVerdict] = None) -> Path:
        """Write the statistics result CSV (through a temporary file)."""
        return self._views("write its CSV").write_csv(self, Path(path), self.verdict(verdict))

    def _views(self, what: str) -> StatisticsViews:
        if self.views is None:
            raise no_views(self, what)
        return self.views

    def __rich__(self) -> Group:
        """What ``rich.print(report)`` shows: the console report of ``opdiff compare``."""
        csv_path = None if self.csv_path is None else str(self.csv_path)
        return Group(*self._views("show itself").console(self, self.verdict(), csv_path))

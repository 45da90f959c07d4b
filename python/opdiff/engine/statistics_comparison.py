"""A whole comparison where one side (or both) holds statistics dumps: its plans through the
statistics engine into a StatisticsReport, and its result CSV. ``opdiff.compare`` comes here when
discovery finds statistics CSVs on a side."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from opdiff.engine.driver import drive
from opdiff.engine.statistics_engine import StatisticsEngine
from opdiff.fileio.atomic import incomplete_name
from opdiff.fileio.phase_marks import mark_phase
from opdiff.graph.gc_pause import gc_paused
from opdiff.match.op_matching import OpPlan
from opdiff.report.statistics.views import STATISTICS_VIEWS
from opdiff.results.scenario import Scenario
from opdiff.results.statistics_report import PathLike, StatisticsReport
from opdiff.results.statistics_rows import StatisticsRow


@dataclass(frozen=True)
class _WholeCsv:
    """The statistics CSV, written whole once the rows are in: its verdict column is judged against
    every row (see StatisticsVerdict)."""

    report: StatisticsReport
    target: Path

    def write(self, row: StatisticsRow) -> None:
        """Nothing yet: the driver keeps the row in the report."""

    def close(self) -> Path:
        return self.report.to_csv(self.target)

    def abandon(self) -> Path:
        return self.report.to_csv(incomplete_name(self.target))

    def discard(self) -> None:
        """Nothing to remove: the file is written only by close or abandon, through a temporary name."""


def compare_statistics(scenario: Scenario, plans: Sequence[OpPlan], my_folder: Path, golden_folder: Path,
                       notes: Sequence[str] = (), *, csv: Optional[PathLike] = None,
                       threads: Optional[int] = None, quantized: bool = False) -> StatisticsReport:
    """Compare planned ops statistic by statistic (`threads` is accepted for the API's sake: one
    thread reads small files fastest). With `csv`, the rows are written there under the default
    verdict (`quantized`: my side is a quantized model, as for the tensor verdict); Ctrl-C returns what was compared, with ``complete=False``."""
    report = StatisticsReport(scenario, my_folder, golden_folder, notes=list(notes), quantized=quantized, views=STATISTICS_VIEWS)
    engine = StatisticsEngine()
    file = None if csv is None else _WholeCsv(report, Path(csv))
    # Rows are many small acyclic objects: the cyclic collector would rescan them all again and again.
    with gc_paused():
        drive(report, engine.rows(list(plans)), file)
    mark_phase("rows")
    report.notes += engine.notes
    return report


__all__ = ["compare_statistics"]

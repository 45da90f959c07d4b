"""A whole comparison where one side (or both) holds statistics dumps: its plans through the
statistics engine into a StatisticsReport, and its result CSV. ``opdiff.compare`` comes here when
discovery finds statistics CSVs on a side."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from opdiff.engine.statistics_engine import StatisticsEngine
from opdiff.graph.gc_pause import gc_paused
from opdiff.match.op_matching import OpPlan
from opdiff.report.statistics.views import STATISTICS_VIEWS
from opdiff.results.scenario import Scenario
from opdiff.results.statistics_report import PathLike, StatisticsReport


def compare_statistics(scenario: Scenario, plans: Sequence[OpPlan], my_folder: Path, golden_folder: Path,
                       notes: Sequence[str] = (), *, csv: Optional[PathLike] = None,
                       threads: Optional[int] = None, quantized: bool = False) -> StatisticsReport:
    """Compare planned ops statistic by statistic (`threads` is accepted for the API's sake: one
    thread reads small files fastest). With `csv`, the rows are written there under the default
    verdict (`quantized`: my side is a quantized model, as for the tensor verdict); Ctrl-C returns what was compared, with ``complete=False``."""
    report = StatisticsReport(scenario, my_folder, golden_folder, notes=list(notes), quantized=quantized, views=STATISTICS_VIEWS)
    engine = StatisticsEngine()
    # Rows are many small acyclic objects: the cyclic collector would rescan them all again and again.
    with gc_paused():
        try:
            for row in engine.rows(list(plans)):
                report.rows.append(row)
        except KeyboardInterrupt:
            report.complete = False
        report.notes += engine.notes
        if csv is not None:
            target = Path(csv)
            if not report.complete:
                target = target.with_name(target.stem + ".incomplete.csv")
            report.csv_path = report.to_csv(target)
    return report


__all__ = ["compare_statistics"]

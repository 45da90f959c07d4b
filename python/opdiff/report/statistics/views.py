"""How a StatisticsReport shows itself (``__rich__``) and writes its CSV: the views opdiff.compare
hands to every StatisticsReport it builds (results.protocol.StatisticsViews)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from rich.console import RenderableType

from opdiff.report.statistics.console import statistics_renderables
from opdiff.report.statistics.csv_writer import write_statistics_csv
from opdiff.results.statistics_report import StatisticsReport
from opdiff.results.statistics_verdict import StatisticsVerdict


@dataclass(frozen=True)
class StatisticsReportViews:
    """The console and CSV views of a StatisticsReport."""

    def console(self, report: StatisticsReport, verdict: StatisticsVerdict, csv_path: Optional[str]) -> List[RenderableType]:
        return statistics_renderables(report, verdict, csv_path)

    def write_csv(self, report: StatisticsReport, path: Path, verdict: StatisticsVerdict) -> Path:
        return write_statistics_csv(report.rows, path, verdict)


STATISTICS_VIEWS = StatisticsReportViews()

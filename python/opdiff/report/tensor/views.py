"""How a Report shows itself (``__rich__``, ``_repr_html_``) and writes its reference-compatible
CSV: the views opdiff.compare hands to every Report it builds (results.protocol.TensorViews)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

from rich.console import RenderableType

from opdiff.report.tensor.console import report_renderables
from opdiff.report.tensor.csv_writer import ReferenceCsvWriter, format_row
from opdiff.results.tensor_report import Report
from opdiff.results.verdict import Verdict


@dataclass(frozen=True)
class ReportViews:
    """The console, notebook, CSV and table views of a Report."""

    def console(self, report: Report, csv_path: Optional[str]) -> List[RenderableType]:
        return report_renderables(report, csv_path=csv_path)

    def notebook(self, report: Report, verdict: Verdict) -> str:
        from opdiff.report.tensor.notebook import report_html  # html and its entity table, for notebooks only

        return report_html(report, verdict)

    def write_csv(self, report: Report, path: Path) -> Path:
        with ReferenceCsvWriter(path, report.columns) as writer:
            for row in report.rows:
                writer.write(row)
        return path

    def table(self, report: Report) -> Tuple[List[str], List[List[str]]]:
        return report.columns.header(), [format_row(row, report.columns) for row in report.rows]


TENSOR_VIEWS = ReportViews()

"""The report formats a comparison can write beside its result CSV (``--report csv,json,html,xlsx``),
and the writer of each, for tensor and for statistics reports, in one table."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Dict, List, Sequence

from opdiff.report.findings import Finding
from opdiff.report.html_writer import write_html_report
from opdiff.report.json_writer import write_json_report
from opdiff.report.result import Report
from opdiff.report.statistics_html import write_statistics_html
from opdiff.report.statistics_json import write_statistics_json
from opdiff.report.statistics_result import StatisticsReport
from opdiff.report.statistics_verdict import StatisticsVerdict
from opdiff.report.verdict import VerdictLike
from opdiff.report.xlsx_writer import write_xlsx_report

REPORT_FORMATS = ("csv", "json", "html", "xlsx")

TensorWriter = Callable[[Report, Path, Sequence[Finding], VerdictLike], Path]
StatisticsWriter = Callable[[StatisticsReport, Path, Sequence[Finding], StatisticsVerdict], Path]

# The CSV is written as rows come (compare(csv=...)); these follow it, named after it.
TENSOR_WRITERS: Dict[str, TensorWriter] = {"json": write_json_report, "html": write_html_report, "xlsx": write_xlsx_report}
# A statistics report has no xlsx form.
STATISTICS_WRITERS: Dict[str, StatisticsWriter] = {"json": write_statistics_json, "html": write_statistics_html}


def parse_report_formats(text: str) -> List[str]:
    """``--report``'s comma-separated list; ValueError naming an unknown format.

    >>> parse_report_formats("CSV, html")
    ['csv', 'html']
    """
    formats = [part.strip().lower() for part in text.split(",") if part.strip()]
    unknown = [name for name in formats if name not in REPORT_FORMATS]
    if unknown:
        raise ValueError(f"unknown report format(s) {', '.join(unknown)}; known: {', '.join(REPORT_FORMATS)}")
    return formats

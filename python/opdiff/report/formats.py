"""The report formats a comparison can write beside its result CSV (``--report csv,json,html,xlsx``,
``model-explorer``), and the writer of each, per result family, in one table."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence

from opdiff.results.findings import Finding
from opdiff.results.protocol import Result, ResultFamily

REPORT_FORMATS = ("csv", "json", "html", "xlsx", "model-explorer")

# (result, path, findings, verdict) -> path; the result and verdict are those of the writer's family
Writer = Callable[[Any, Path, Sequence[Finding], Any], Path]


# Each writer's module is imported when its report is asked for: a comparison that writes only the
# CSV (the default) loads none of them (the HTML writers and their page template are the largest).
def _tensor_json(result: Any, path: Path, findings: Sequence[Finding], verdict: Any) -> Path:
    from opdiff.report.tensor.json_writer import write_json_report

    return write_json_report(result, path, findings, verdict)


def _tensor_html(result: Any, path: Path, findings: Sequence[Finding], verdict: Any) -> Path:
    from opdiff.report.tensor.html_writer import write_html_report

    return write_html_report(result, path, findings, verdict)


def _tensor_xlsx(result: Any, path: Path, findings: Sequence[Finding], verdict: Any) -> Path:
    from opdiff.report.tensor.xlsx_writer import write_xlsx_report

    return write_xlsx_report(result, path, findings, verdict)


def _model_explorer(result: Any, path: Path, findings: Sequence[Finding], verdict: Any) -> Path:
    from opdiff.report.model_explorer.node_data import write_model_explorer_node_data

    return write_model_explorer_node_data(result, path, findings, verdict)


def _statistics_json(result: Any, path: Path, findings: Sequence[Finding], verdict: Any) -> Path:
    from opdiff.report.statistics.json_writer import write_statistics_json

    return write_statistics_json(result, path, findings, verdict)


def _statistics_html(result: Any, path: Path, findings: Sequence[Finding], verdict: Any) -> Path:
    from opdiff.report.statistics.html_writer import write_statistics_html

    return write_statistics_html(result, path, findings, verdict)


# The CSV is written as rows come (compare(csv=...)); these follow it, named after it. A statistics
# report has no xlsx form; model-explorer writes node-data files named after it and the record of them
# ({result stem}.model_explorer.json), whose path it returns.
WRITERS: Dict[ResultFamily, Dict[str, Writer]] = {
    ResultFamily.TENSOR: {"json": _tensor_json, "html": _tensor_html, "xlsx": _tensor_xlsx, "model-explorer": _model_explorer},
    ResultFamily.STATISTICS: {"json": _statistics_json, "html": _statistics_html},
}


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


def write_report_formats(result: Result, formats: Sequence[str], findings: Sequence[Finding], verdict: Any) -> List[str]:
    """Write each of `formats` that `result`'s family has, beside its CSV; one line per format for
    the console (where it went, or why it was not written)."""
    if result.csv_path is None:
        return []
    writers = WRITERS[result.family]
    lines = []
    for name in formats:
        if name in writers:
            lines.append(f"{name} report: {writers[name](result, result.csv_path.with_suffix(f'.{name}'), findings, verdict)}")
        elif name != "csv":
            written = ["csv", *writers]
            lines.append(f"{name} report: not written for {result.family.value} dumps "
                         f"(the {', '.join(written[:-1])} and {written[-1]} reports are)")
    return lines

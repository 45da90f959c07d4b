"""The Excel report (needs the optional xlsxwriter: ``pip install "opdiff[xlsx]"``): a summary sheet
(counts, thresholds, the advisor's findings) and the rows in the result CSV's columns, split over as
many sheets as Excel's row limit requires, with NormRatioError and the verdict beside them, failing
rows highlighted.

Metric cells are numbers where the CSV text is a finite number, else the CSV's text (nan, inf, NaN
for "not computed"): a spreadsheet cannot hold NaN or Inf as numbers.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, List, Optional, Sequence, Union

from opdiff.fileio.atomic import RESULT_MODE, replacing
from opdiff.report.tensor.csv_writer import format_row
from opdiff.results.findings import Finding
from opdiff.results.rows import CompareRow
from opdiff.results.tensor_report import Report
from opdiff.results.verdict import Verdict, VerdictLike

EXCEL_MAX_ROWS = 1_048_576  # rows per worksheet, the header included


def _cell(text: str) -> Union[str, float]:
    try:
        value = float(text)
    except ValueError:
        return text
    return value if math.isfinite(value) and not text.startswith("'") else text


def require_xlsxwriter() -> None:
    """ValueError with the install hint when xlsxwriter is missing (checked before a long comparison)."""
    try:
        import xlsxwriter  # noqa: F401
    except ImportError:
        raise ValueError('the xlsx report needs xlsxwriter: pip install "opdiff[xlsx]"') from None


def sheet_names(rows: int, row_limit: int = EXCEL_MAX_ROWS) -> List[str]:
    """Names of the row sheets for `rows` rows at `row_limit` rows per sheet (header included).

    >>> sheet_names(5, row_limit=3)
    ['rows', 'rows (2)', 'rows (3)']
    """
    per_sheet = row_limit - 1
    count = max(1, -(-rows // per_sheet))
    return ["rows"] + [f"rows ({k})" for k in range(2, count + 1)]


def write_xlsx_report(report: Report, path: Path, findings: Sequence[Finding] = (), verdict: VerdictLike = None,
                      *, row_limit: int = EXCEL_MAX_ROWS) -> Path:
    """Write the Excel report through a temporary name; `row_limit` is the rows per sheet (header
    included), Excel's limit by default. The rows carry the result CSV's columns, then
    NormRatioError and the verdict (pass/fail; empty when not compared).

    >>> import tempfile
    >>> from opdiff.results.columns import CsvColumns
    >>> from opdiff.results.rows import TensorId
    >>> from opdiff.results.scenario import Scenario
    >>> report = Report(Scenario.NPU_VS_NPU, Path("a"), Path("b"), CsvColumns())
    >>> report.rows.append(CompareRow(index=0, op_type="Op", npu_dump="op", ground_truth="*", tensor=TensorId("op", "output", 0),
    ...                               reasons=("no golden file",)))
    >>> write_xlsx_report(report, Path(tempfile.mkdtemp()) / "r.xlsx").exists()
    True
    """
    require_xlsxwriter()
    if row_limit < 2:
        raise ValueError("row_limit must leave room for the header and one row")
    judge = report.verdict(verdict)
    path = Path(path)
    with replacing(path, mode=RESULT_MODE) as temporary:
        _write_book(report, judge, temporary, row_limit, findings)
    return path


def _write_book(report: Report, judge: Verdict, partial: Path, row_limit: int, findings: Sequence[Finding]) -> None:
    import xlsxwriter  # an extra (opdiff[xlsx]): imported only when a workbook is written

    # constant_memory: rows go straight to disk, so a million-row report does not sit in memory.
    book = xlsxwriter.Workbook(str(partial), {"constant_memory": True, "strings_to_formulas": False, "strings_to_urls": False})
    try:
        bold = book.add_format({"bold": True})
        wrap = book.add_format({"text_wrap": True, "valign": "top"})
        fail = book.add_format({"bg_color": "#FDE0E0", "font_color": "#9C0006"})
        header_format = book.add_format({"bold": True, "bg_color": "#EEEEEE", "bottom": 1})

        summary = book.add_worksheet("summary")
        summary.set_column(0, 0, 22)
        summary.set_column(1, 1, 40)
        summary.set_column(2, 5, 30)
        line = 0

        def put(*cells: Any, style: Optional[Any] = None) -> None:  # style: an xlsxwriter Format
            nonlocal line
            for col, value in enumerate(cells):
                summary.write(line, col, value, style)
            line += 1

        counts = report.summary(judge)
        put("opdiff comparison", style=bold)
        put("scenario", report.scenario.value)
        put("my (compared)", str(report.my_folder))
        put("golden", str(report.golden_folder))
        put("complete", "yes" if report.complete else "no (interrupted)")
        line += 1
        put("counts", style=bold)
        for key in ("rows", "compared", "passing", "failing", "not_compared"):
            put(key, counts[key])
        line += 1
        put(f"thresholds (verdict: {judge.name})", style=bold)
        for limit in judge.as_json():
            put(str(limit["metric"]), f"fails {limit['fails_when']} {limit['value']:g}", str(limit["applies_to"]))
        line += 1
        put("findings", style=bold)
        put("kind", "op", "tensor", "Index", "evidence", "advice", style=header_format)
        for f in findings:
            for col, value in enumerate((f.kind.value, f.op, f.tensor_index, f.index, f.evidence, f.advice)):
                summary.write(line, col, value, wrap)
            line += 1
        if not findings:
            put("(the advisor was not run or found nothing)")

        header = report.columns.header() + ["NormRatioError", "Verdict"]
        failing = {id(row) for row in report.failing(judge)}
        names = sheet_names(len(report.rows), row_limit)
        per_sheet = row_limit - 1
        for number, name in enumerate(names):
            sheet = book.add_worksheet(name)
            sheet.freeze_panes(1, 0)
            sheet.set_column(0, len(header) - 1, 14)
            for col, title in enumerate(header):
                sheet.write_string(0, col, title, header_format)
            chunk: Sequence[CompareRow] = report.rows[number * per_sheet:(number + 1) * per_sheet]
            for r, row in enumerate(chunk, start=1):
                style = fail if id(row) in failing else None
                verdict_cell = "" if row.metrics is None else "fail" if id(row) in failing else "pass"
                extra = ["" if row.metrics is None else repr(row.metrics.norm_ratio_error), verdict_cell]
                for col, text in enumerate(format_row(row, report.columns) + extra):
                    cell = _cell(text)
                    if isinstance(cell, float):
                        sheet.write_number(r, col, cell, style)
                    else:
                        sheet.write_string(r, col, cell, style)
            sheet.autofilter(0, 0, max(len(chunk), 1), len(header) - 1)
    finally:
        book.close()

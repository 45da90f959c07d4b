"""The Excel report, read back with openpyxl: summary sheet, rows in the CSV's columns, failing rows
highlighted, sheets split at the row limit."""

import subprocess
import sys
from pathlib import Path

import pytest

openpyxl = pytest.importorskip("openpyxl", reason="openpyxl (test extra) reads the xlsx back")
pytest.importorskip("xlsxwriter", reason="the xlsx report needs xlsxwriter (the xlsx extra)")

from opdiff.advisor.tensor_advisor import advise  # noqa: E402
from opdiff.report.tensor.csv_writer import format_row  # noqa: E402
from opdiff.report.tensor.xlsx_writer import EXCEL_MAX_ROWS, sheet_names, write_xlsx_report  # noqa: E402
from tests.compare.test_advisor import make_chain  # noqa: E402
from tests.support.large_report import large_report  # noqa: E402

FAIL_FILL = "FFFDE0E0"


def fill_of(cell) -> str:
    return cell.fill.fgColor.rgb if cell.fill is not None and cell.fill.fill_type == "solid" else ""


def test_summary_rows_and_highlighted_failures(tmp_path: Path) -> None:
    report, fm = make_chain(tmp_path, 8, lambda i: 0.4 if i == 5 else 1e-3)
    findings = advise(report, fm)
    path = write_xlsx_report(report, tmp_path / "r.xlsx", findings)
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["summary", "rows"]
    summary_rows = [row for row in book["summary"].iter_rows(values_only=True) if row and row[0]]
    summary = {row[0]: row[1] for row in summary_rows}
    counts = report.summary()
    assert summary["rows"] == counts["rows"] and summary["failing"] == counts["failing"] >= 1
    assert "thresholds (verdict: default)" in summary
    assert ("CosineSimilarity", "fails below 0.99999", "fp16 vs fp32") in [tuple(row[:3]) for row in summary_rows]
    kinds = [row[0] for row in book["summary"].iter_rows(values_only=True)]
    assert "culprit op" in kinds and "end-to-end verdict" in kinds
    sheet = book["rows"]
    header = [cell.value for cell in sheet[1]]
    assert header == report.columns.header() + ["NormRatioError", "Verdict"]
    cos = header.index("CosineSimilarity")
    failing = {row.tensor_index for row in report.failing()}
    tensor = header.index("TensorIndex")
    for excel_row, row in zip(sheet.iter_rows(min_row=2), report.rows):
        cells = format_row(row, report.columns)
        assert excel_row[tensor].value == row.tensor_index
        if row.compared:
            assert isinstance(excel_row[cos].value, (int, float))  # a number cell (1.0 reads back as 1)
            assert f"{excel_row[cos].value:.6f}" == cells[cos]
        else:
            assert excel_row[cos].value == "NaN"  # not computed stays the reference's text
        assert (fill_of(excel_row[0]) == FAIL_FILL) == (row.tensor_index in failing)
        verdict = excel_row[header.index("Verdict")].value or None
        assert verdict == (None if not row.compared else "fail" if row.tensor_index in failing else "pass")
        if row.compared:
            assert excel_row[header.index("NormRatioError")].value == pytest.approx(row.metrics.norm_ratio_error)
    assert sheet.max_row == len(report.rows) + 1


def test_rows_split_over_sheets_at_the_row_limit(tmp_path: Path) -> None:
    report = large_report(23)
    path = write_xlsx_report(report, tmp_path / "split.xlsx", row_limit=6)  # header + 5 rows a sheet
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["summary", "rows", "rows (2)", "rows (3)", "rows (4)", "rows (5)"]
    seen = []
    for name in book.sheetnames[1:]:
        sheet = book[name]
        assert sheet.max_row <= 6
        assert [c.value for c in sheet[1]] == report.columns.header() + ["NormRatioError", "Verdict"]
        seen += [row[report.columns.header().index("TensorIndex")] for row in sheet.iter_rows(min_row=2, values_only=True)]
    assert seen == [row.tensor_index for row in report.rows]


def test_sheet_names_at_excels_limit() -> None:
    assert sheet_names(EXCEL_MAX_ROWS - 1) == ["rows"]
    assert sheet_names(EXCEL_MAX_ROWS) == ["rows", "rows (2)"]
    assert sheet_names(0) == ["rows"]
    with pytest.raises(ValueError):
        write_xlsx_report(large_report(1), Path("unused.xlsx"), row_limit=1)


def test_cli_writes_xlsx_beside_the_csv(tmp_path: Path) -> None:
    make_chain(tmp_path, 3, lambda i: 1e-3)
    out = subprocess.run(
        [sys.executable, "-m", "opdiff", "compare", "-m", str(tmp_path / "npu"), "-g", str(tmp_path / "golden"),
         "-f", str(tmp_path / "chain.json"), "-out", str(tmp_path / "out"), "--report", "xlsx"],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    (csv_path,) = (tmp_path / "out").glob("result_*.csv")
    assert openpyxl.load_workbook(csv_path.with_suffix(".xlsx")).sheetnames == ["summary", "rows"]

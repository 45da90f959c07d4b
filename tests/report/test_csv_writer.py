import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opdiff
from opdiff.report.tensor.csv_writer import ReferenceCsvWriter, format_row, safe_cell
from opdiff.results.columns import CsvColumns
from opdiff.results.rows import CompareRow, TensorId


def compared_row(index: int = 3) -> CompareRow:
    m = opdiff.metrics(np.array([1, 2, 3], np.float16), np.array([1, 2, 3.5], np.float32))
    return CompareRow(
        index=index,
        op_type="Conv2D",
        npu_dump="conv1/Conv2D_relu_fused",
        ground_truth="conv1/Conv2D,conv1/Relu",
        tensor=TensorId("conv1/Conv2D_relu_fused", "output", 0),
        my_dtype="float16",
        my_address="12345",
        golden_dtype="float32",
        shape=(1, 3),
        overflow=False,
        metrics=m,
    )


def test_header_follows_the_reference_order():
    columns = CsvColumns(op_sequence=True, golden_address=False, overflow=True)
    assert columns.header()[:12] == [
        "Index", "OpSequence", "OpType", "NPUDump", "DataType", "Address", "GroundTruth", "DataType",
        "TensorIndex", "Shape", "OverFlow", "CosineSimilarity",
    ]
    assert columns.header()[-1] == "CompareFailReason"
    assert len(columns.header()) == 11 + len(opdiff.ALGORITHMS) + 1


def test_compared_row_cells():
    cells = format_row(compared_row(), CsvColumns(golden_address=False, overflow=True))
    assert cells[:9] == [
        "3", "Conv2D", "conv1/Conv2D_relu_fused", "float16", "12345", "conv1/Conv2D,conv1/Relu", "float32",
        "conv1/Conv2D_relu_fused:output:0", "[1,3]",
    ]
    assert cells[9] == "NO"
    assert cells[10 + opdiff.ALGORITHMS.index("MaxAbsoluteError")] == "0.500000"
    assert cells[-1] == ""


def test_uncompared_row_has_nan_everywhere_and_its_reason():
    row = CompareRow(1, "Relu", "relu", "relu", TensorId("relu", "input", 0), reasons=("[relu] no golden", "shape differs"))
    cells = format_row(row, CsvColumns())
    assert cells[3] == "NaN" and cells[10:-1] == ["NaN"] * len(opdiff.ALGORITHMS)
    assert cells[-1] == "[relu] no golden,shape differs"


@pytest.mark.parametrize("cell", ["=1+2", "+cmd", "@SUM(A1)", "-x", "＝evil"])
def test_formula_like_text_is_neutralised(cell):
    assert safe_cell(cell) == "'" + cell


def test_numbers_stay_numbers():
    assert safe_cell("-1.000000") == "-1.000000" and safe_cell("-inf") == "-inf"


def test_completed_run_is_renamed_into_place(tmp_path: Path):
    out = tmp_path / "result_20261129120000.csv"
    with ReferenceCsvWriter(out, CsvColumns()) as writer:
        writer.write(compared_row(0))
        writer.write(compared_row(1))
        assert not out.exists() and writer.partial.exists()
    rows = list(csv.reader(out.open()))
    assert len(rows) == 3 and rows[0][0] == "Index"
    assert (out.stat().st_mode & 0o777) == 0o600
    assert not list(tmp_path.glob("*.partial"))


def test_interrupted_run_keeps_an_incomplete_report(tmp_path: Path):
    out = tmp_path / "result.csv"
    with pytest.raises(KeyboardInterrupt):
        with ReferenceCsvWriter(out, CsvColumns()) as writer:
            writer.write(compared_row(0))
            raise KeyboardInterrupt
    assert not out.exists()
    kept = tmp_path / "result.incomplete.csv"
    assert len(kept.read_text().splitlines()) == 2


def test_two_writers_of_one_name_keep_both_results(tmp_path: Path):
    out = tmp_path / "result_20261129120000.csv"
    first, second = ReferenceCsvWriter(out, CsvColumns()), ReferenceCsvWriter(out, CsvColumns())
    first.write(compared_row(0))
    second.write(compared_row(1))
    second.write(compared_row(2))
    assert first.close() == out
    assert second.close() == tmp_path / "result_20261129120000_1.csv"
    assert len(out.read_text().splitlines()) == 2
    assert len((tmp_path / "result_20261129120000_1.csv").read_text().splitlines()) == 3
    assert not list(tmp_path.glob("*.partial"))


def test_two_compare_runs_into_one_folder_at_once(tmp_path: Path):
    import subprocess
    import sys

    a, b, out = tmp_path / "a", tmp_path / "b", tmp_path / "out"
    a.mkdir()
    b.mkdir()
    for i in range(20):
        for folder in (a, b):
            opdiff.write_dump(folder / f"Op.op{i}.{i}.1.{1700000000000000 + i}", f"op{i}", outputs=[np.ones(64, np.float32)])
    command = [sys.executable, "-m", "opdiff", "compare", "-m", str(a), "-g", str(b), "-out", str(out)]
    runs = [subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(2)]
    assert all(run.wait(timeout=120) == 0 for run in runs)
    results = sorted(out.glob("result_*.csv"))
    assert len(results) == 2  # neither run overwrote the other, even within the same second
    assert all(len(path.read_text().splitlines()) == 21 for path in results)
    assert not list(out.glob("*.partial"))


_HOSTILE = st.text(alphabet=st.sampled_from(list("ab,\"\n\r =+-@%'; ") + ["＝", "é"]), max_size=8)


@settings(max_examples=200, deadline=None)
@given(op_type=_HOSTILE, npu_dump=_HOSTILE, ground_truth=_HOSTILE, reasons=st.lists(_HOSTILE, max_size=3),
       address=st.one_of(st.none(), _HOSTILE), overflow=st.sampled_from([None, True, False]))
def test_lines_are_what_the_csv_module_writes(op_type, npu_dump, ground_truth, reasons, address, overflow) -> None:
    """The writer joins cells itself, with the core's metric text as it came: every line must read
    back as format_row's cells, and be what csv.writer writes of them (which leaves a lone carriage
    return unquoted, where a reader would end the line: the writer quotes it)."""
    import dataclasses
    import io

    from opdiff.report.tensor.csv_writer import csv_line
    from opdiff.report.tensor.reference_format import format_metrics

    base = dataclasses.replace(compared_row(), op_type=op_type, npu_dump=npu_dump, ground_truth=ground_truth,
                               reasons=tuple(reasons), my_address=address, overflow=overflow)
    assert base.metrics is not None
    text = ",".join(f'"{cell}"' if "," in cell else cell for cell in format_metrics(opdiff.ALGORITHMS, base.metrics))
    for row in (base, dataclasses.replace(base, reference_text=text), dataclasses.replace(base, metrics=None)):
        for columns in (CsvColumns(algorithms=opdiff.ALGORITHMS, my_address=True, overflow=True),
                        CsvColumns(algorithms=("MaxAbsoluteError", "CosineSimilarity"), op_sequence=True)):
            cells, line = format_row(row, columns), csv_line(row, columns)
            assert list(csv.reader(io.StringIO(line, newline=""))) == [cells]
            if not any("\r" in cell for cell in cells):
                expected = io.StringIO()
                csv.writer(expected, lineterminator="\n").writerow(cells)
                assert line == expected.getvalue()

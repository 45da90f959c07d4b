"""Statistics dumps as files (issue 15, part 2): the writer's device form (docs/reference/device-files.md §2.1), the
reader, bad files, discovery of statistics sides and `opdiff info` on them."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opdiff
from opdiff.cli import main
from opdiff.dumps import Tensor
from opdiff.dumps.discovery import FileKind, find_leaves, index_folder
from opdiff.dumps.layouts import encode
from opdiff.dumps.statistics import HEADER, StatisticsFormatError, parse_statistics, read_statistics
from opdiff.dumps.statistics_writer import write_statistics

NAME = "Conv2D.conv1.3.1.1700000000000001"


def cells_of(path: Path) -> list:
    return [line.split(",") for line in path.read_text().splitlines()[1:]]


def test_the_writer_writes_the_device_form(tmp_path: Path) -> None:
    x = np.abs(np.random.default_rng(0).standard_normal((2, 5, 3, 3))).astype(np.float32) + 0.5  # all > 0
    path = write_statistics(tmp_path / f"{NAME}.csv", inputs=[Tensor(x, layout="NC1HWC0", dtype="float16")],
                            outputs=[Tensor(np.array([-7, 3, 100], np.int8)), Tensor(np.float32(2.5)),
                                     Tensor(np.ones(4, np.complex64))])
    text = path.read_text()
    assert text.splitlines()[0] == HEADER and text.endswith("\n")
    fp16, int8, scalar, complex_ = cells_of(path)
    stored = encode(x.astype(np.float16), "NC1HWC0", c0=16).astype(np.float64)  # padding zeros included
    assert fp16[:6] == ["Input", "0", str(stored.size * 2), "DT_FLOAT16", "NC1HWC0", "2x1x3x3x16"]
    assert fp16[6:] == [f"{stored.max():g}", "0", f"{stored.mean():g}", str(stored.size), "0", "0", "0"]
    assert float(fp16[8]) < float(x.astype(np.float16).mean())  # the padding pulls the mean towards 0
    assert len(fp16[8].replace("-", "").replace(".", "").lstrip("0")) <= 6  # 6 significant digits
    assert int8[:6] == ["Output", "0", "3", "DT_INT8", "ND", "3"] and int8[6:8] == ["100", "-7"]
    assert scalar[3:6] == ["DT_FLOAT", "ND", "-"] and scalar[6:10] == ["2.5", "2.5", "2.5", "1"]
    assert complex_[:6] == ["Output", "2", "32", "DT_COMPLEX64", "ND", "4"] and complex_[6:] == [""] * 6


def test_bf16_fractal_nz_statistics_cover_the_tiles(tmp_path: Path) -> None:
    x = np.full((20, 40), -3.0, np.float32)
    path = write_statistics(tmp_path / f"{NAME}.csv", outputs=[Tensor(x, layout="FRACTAL_NZ", dtype="bfloat16")])
    stats = read_statistics(path).tensor("output", 0)
    assert stats.data_type == "DT_BF16" and stats.shape == (3, 2, 16, 16) and stats.count == 32 * 48
    assert (stats.min, stats.max) == (-3.0, 0.0)  # a padding zero is the max
    assert math.isclose(stats.mean, -3.0 * 800 / 1536, rel_tol=1e-5)


def test_the_reader_reads_what_the_writer_wrote(tmp_path: Path) -> None:
    x = np.random.default_rng(1).standard_normal((3, 7)).astype(ml_dtypes.bfloat16)
    x[0, 0], x[0, 1], x[1, 1] = np.nan, np.inf, -np.inf
    path = write_statistics(tmp_path / f"{NAME}.csv", inputs=[x], outputs=[x.astype(np.float32)])
    stats = read_statistics(path)
    (role, index), = {(t.role, t.index) for t in stats.tensors if t.role == "input"}
    first = stats.tensor("input", 0)
    assert (role, index, first.nan, first.pos_inf, first.neg_inf, first.count) == ("input", 0, 1, 1, 1, 21)
    finite = x.astype(np.float64)[np.isfinite(x.astype(np.float64))]
    assert math.isinf(first.max) and first.max > 0 and math.isnan(first.mean)
    assert stats.tensor("output", 0).data_type == "DT_FLOAT" and not stats.problems
    assert finite.size == 18


@pytest.mark.parametrize("damage, reason", [
    ("cut", "truncated"),
    ("text", "is not a number"),
    ("count", "does not match the Shape"),
    ("unsupported", "does not support"),
])
def test_a_bad_line_is_a_problem_of_its_tensor(tmp_path: Path, damage: str, reason: str) -> None:
    path = write_statistics(tmp_path / f"{NAME}.csv", inputs=[np.ones(4, np.float32)], outputs=[np.ones((2, 3), np.float16)])
    head, good, bad = path.read_text().splitlines()
    cells = bad.split(",")
    if damage == "cut":
        bad = bad[: len(bad) // 2]
    elif damage == "text":
        bad = ",".join(cells[:7] + ["1.0e"] + cells[8:])
    elif damage == "count":
        bad = ",".join(cells[:9] + ["7"] + cells[10:])
    else:
        bad = ",".join(cells[:6]) + ",,,,,,"
    stats = parse_statistics("\n".join([head, good, bad]), str(path))
    assert stats.tensor("input", 0) is not None and stats.tensor("output", 0) is None
    assert reason in stats.missing_reason("output", 0) and str(path) in stats.missing_reason("output", 0)


@pytest.mark.parametrize("text, reason", [("", "empty"), ("Max,Min\n1,2\n", "wrong header"), (HEADER.replace("Max", "Maximum"), "wrong header")])
def test_a_file_without_the_header_is_an_error_naming_it(tmp_path: Path, text: str, reason: str) -> None:
    path = tmp_path / f"{NAME}.csv"
    path.write_text(text)
    with pytest.raises(StatisticsFormatError, match=reason) as error:
        read_statistics(path)
    assert str(path) in str(error.value)


def test_a_device_tree_of_statistics_is_a_side_of_its_own_kind(tmp_path: Path) -> None:
    leaf = tmp_path / "20261201093000" / "0" / "resnet" / "1" / "0"
    leaf.mkdir(parents=True)
    write_statistics(leaf / f"{NAME}.csv", outputs=[np.ones(3, np.float32)])
    (leaf / "notes.csv").write_text("a,b\n")
    (found,) = find_leaves(tmp_path)
    index = index_folder(found.folder)
    assert found.step == 0 and index.kind is FileKind.STATISTICS and index.statistics_count == 1
    assert list(index.files) == ["conv1"] and index.newest("conv1").path.endswith(".csv")
    assert [(p.name, "statistics dump" in r) for p, r in index.skipped] == [("notes.csv", True)]


def test_in_a_mixed_folder_the_full_dump_of_an_execution_wins(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # a table cell (DT_FLOAT) is read: a width where the table fits
    opdiff.write_dump(tmp_path / NAME, "conv1", outputs=[np.ones(3, np.float32)])
    write_statistics(tmp_path / f"{NAME}.csv", outputs=[np.ones(3, np.float32)])
    write_statistics(tmp_path / "Relu.relu1.4.1.1700000000000002.csv", outputs=[np.ones(3, np.float32)])
    index = index_folder(tmp_path)
    assert index.kind is FileKind.STATISTICS and index.statistics_count == 1
    assert index.newest("conv1").path == str(tmp_path / NAME)
    assert [(p.name, r) for p, r in index.skipped] == [
        (f"{NAME}.csv", "statistics of an op execution that also has a full dump: the full dump is compared")]
    assert main(["info", str(tmp_path), str(tmp_path / "Relu.relu1.4.1.1700000000000002.csv")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "statistics dump, 2 op(s), 1 full dump(s), 1 statistics file(s), 1 skipped" in out
    assert f"skipped: {NAME}.csv: statistics of an op execution" in out and "DT_FLOAT" in out


@pytest.mark.cli_output
def test_info_on_a_bad_statistics_file_names_it_without_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / f"{NAME}.csv"
    path.write_text("not,a,statistics,file\n")
    assert main(["info", str(path)]) == 11
    captured = capsys.readouterr()
    assert "wrong header" in captured.err and "Traceback" not in captured.err + captured.out


def test_the_core_reads_regular_files_as_the_python_reader_does(tmp_path: Path) -> None:
    from opdiff import _core
    from opdiff.dumps.statistics import read_many_statistics

    rng = np.random.default_rng(5)
    paths = []
    for k, (layout, dtype, shape) in enumerate([("NC1HWC0", "float16", (1, 5, 2, 3)), ("FRACTAL_NZ", "bfloat16", (17, 33)),
                                                ("ND", "float32", (7,)), ("ND", "int8", (9,)), ("ND", "float32", ())]):
        x = (rng.standard_normal(shape) * 10 ** k).astype(np.float32)
        if dtype == "float32" and x.ndim:
            x[0], x[-1] = np.nan, -np.inf
        paths.append(write_statistics(tmp_path / f"Op.op{k}.{k}.1.{1700000000000000 + k}.csv",
                                      inputs=[Tensor(x, layout=layout, dtype=dtype)], outputs=[Tensor(x * 2, layout=layout, dtype=dtype)]))
    texts = {path: path.read_text() for path in paths}
    damaged = tmp_path / "Op.bad.9.1.1700000000000009.csv"
    damaged.write_text(texts[paths[0]].replace(",0,0,0\n", ",0,0,x\n", 1))
    names = [str(p) for p in paths] + [str(damaged), str(tmp_path / "missing.csv")]
    raw = _core.read_statistics_files(names, 2)
    assert [entry is None for entry in raw] == [False] * len(paths) + [True, True]
    batch = read_many_statistics(names, threads=2)
    for path, got in zip(paths, batch):
        expected = read_statistics(path)
        assert not isinstance(got, Exception)
        assert [str(a) for a in got.tensors] == [str(b) for b in expected.tensors] and got.order == expected.order
    assert "'x' is not a whole number" in batch[-2].missing_reason("input", 0)
    assert isinstance(batch[-1], StatisticsFormatError) and "missing.csv" in str(batch[-1])


CELL_PIECES = ["0", "7", "16", "1344", "-", "x", ".", "e", "-", "+", "inf", "nan", "1e5", "3.5", "", " ", "_", "a", "\r", "\x0b",
               "\x85", "\u2028", "é"]


@given(st.lists(st.tuples(st.integers(0, 12), st.lists(st.sampled_from(CELL_PIECES), max_size=3)), max_size=4),
       st.integers(0, 400), st.booleans())
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_core_and_the_python_reader_agree_on_any_damage(tmp_path: Path, edits, cut: int, duplicate: bool) -> None:
    """Whatever a damaged file looks like, the core's fast path either reads exactly what the
    Python reader reads without a problem, or leaves the file to it (None). (Before a fix, a lone
    '\\r' inside a line split it for Python's splitlines but not for the core.)"""
    from opdiff import _core

    lines = ["Input,0,2688,DT_FLOAT16,NC1HWC0,2x1x7x6x16,9.22656,0,0.432661,1344,0,0,0",
             "Output,0,2688,DT_FLOAT16,NC1HWC0,2x1x7x6x16,3.5,-1.91895,0.300215,1344,0,0,0"]
    cells = lines[1].split(",")
    for column, pieces in edits:
        cells[column] = "".join(pieces)
    lines[1] = ",".join(cells)
    if duplicate:
        lines.append(lines[0])
    text = (HEADER + "\n" + "\n".join(lines) + "\n")[: len(HEADER) + 1 + cut]
    path = tmp_path / "Op.op.1.1.1700000000000001.csv"
    path.write_text(text, newline="", encoding="utf-8")
    (core,) = _core.read_statistics_files([str(path)], 1)
    if core is None:  # left to the Python reader: always allowed
        return
    python = parse_statistics(text, str(path))
    assert not python.problems and not python.notes, (text, python.problems, python.notes)
    assert [(t.role, t.index, t.data_size, t.data_type, t.format, t.shape, t.count) for t in python.tensors] == \
        [(c.role, c.index, c.data_size, c.data_type, c.format, c.shape, c.count) for c in core]
    assert [str((t.max, t.min, t.mean, t.nan, t.neg_inf, t.pos_inf)) for t in python.tensors] == \
        [str((c.max, c.min, c.mean, c.nan, c.neg_inf, c.pos_inf)) for c in core]


def test_info_errors_on_statistics_are_one_line_at_any_width(tmp_path: Path) -> None:
    long_name = "a_statistics_file_whose_name_is_longer_than_a_narrow_terminal_is_wide_by_itself"
    path = tmp_path / f"Op.{long_name}.1.1.1700000000000001.csv"
    path.write_text("Max,Min\n")
    result = subprocess.run([sys.executable, "-m", "opdiff", "info", str(path)], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "COLUMNS": "60"})
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 11 and len(lines) == 1 and long_name in lines[0] and "wrong header" in lines[0]


def test_the_core_names_every_field_of_a_tensor_statistics(tmp_path: Path) -> None:
    """read_many_statistics builds each TensorStatistics from the core's dict as it is
    (numerics.frozen.build_frozen): its keys must be the dataclass's fields, its values theirs."""
    import dataclasses

    from opdiff import _core
    from opdiff.numerics.tensor_statistics import TensorStatistics

    path = write_statistics(tmp_path / "Op.op.1.1.1700000000000001.csv", inputs=[np.arange(6, dtype=np.float32)],
                            outputs=[Tensor(np.ones((2, 3), np.float32), layout="NCHW", dtype="float16")])
    (lines,) = _core.read_statistics_files([str(path)], 1)
    for line in lines:
        fields = line.fields()
        assert list(fields) == [f.name for f in dataclasses.fields(TensorStatistics)]
        assert TensorStatistics(**fields) == read_statistics(path).tensor(fields["role"], fields["index"])

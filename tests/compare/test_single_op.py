"""Single-op detail (-op): the worst elements with logical coordinates, histograms, the reference's files."""

import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import opdiff
from opdiff.dumps import Tensor
from opdiff.engine.single_op import BLOCK, detail_of_arrays, single_op_detail
from opdiff.results.rows import TensorId
from tests.support.child_env import child_env

TS = 1700000000000001


def brute_top(x: np.ndarray, y: np.ndarray, n: int, relative: bool):
    """The reference's ranking, elementwise: error desc (NaN/Inf as 0), then index desc."""
    x64, y64 = x.reshape(-1).astype(np.float64), y.reshape(-1).astype(np.float64)
    error = np.abs(x64 - y64)
    if relative:
        with np.errstate(divide="ignore", invalid="ignore"):
            error = error / np.abs(y64)
    error = np.where(np.isfinite(error), error, 0.0)
    return [int(k) for k in np.lexsort((np.arange(error.size), error))[::-1][:n]]


def test_top_n_over_several_blocks_with_ties_and_zero_golden() -> None:
    rng = np.random.default_rng(3)
    size = 2 * BLOCK + 12345
    y = rng.standard_normal(size).astype(np.float32)
    x = (y + rng.integers(0, 4, size).astype(np.float32) * 0.25).astype(np.float32)  # many exact ties
    y[[5, BLOCK + 7]] = 0.0  # relative error Inf there: ranked as 0
    x[BLOCK - 1] = np.nan
    detail = detail_of_arrays(x, y, top=30)
    assert [e.flat for e in detail.top_absolute] == brute_top(x, y, 30, relative=False)
    assert [e.flat for e in detail.top_relative] == brute_top(x, y, 30, relative=True)
    assert detail.nonfinite_relative == 3
    assert sum(detail.absolute_histogram.counts) == size
    assert detail.absolute_histogram.counts[-1] == 1  # the NaN
    first = detail.top_absolute[0]
    assert first.my == pytest.approx(float(x[first.flat])) and first.golden == pytest.approx(float(y[first.flat]))


def test_fewer_elements_than_n_lists_them_all() -> None:
    detail = detail_of_arrays(np.array([1.0, 2.0, 4.0]), np.array([1.0, 2.5, 3.0]), top=20)
    assert [e.flat for e in detail.top_absolute] == [2, 1, 0]
    assert detail.max_absolute == 1.0 and detail.min_absolute == 0.0


@pytest.fixture()
def npu_pair(tmp_path: Path):
    """NPU vs NPU: my side fp16 in NC1HWC0, golden fp32 in ND; my element [0, 21, 2, 3] is off by 100."""
    mine, golden = tmp_path / "mine", tmp_path / "golden"
    mine.mkdir()
    golden.mkdir()
    rng = np.random.default_rng(1)
    value = rng.standard_normal((1, 24, 5, 6)).astype(np.float32)
    off = value.copy()
    off[0, 21, 2, 3] += 100.0
    off[0, 2, 4, 5] = 0.0
    value[0, 2, 4, 5] = 0.0  # a golden zero: relative error NaN (0/0), printed as "-"
    off[0, 3, 0, 0] = 1.0
    value[0, 3, 0, 0] = 0.0  # Inf relative error
    opdiff.write_dump(mine / f"Conv2D.conv_1.1.1.{TS}", "conv/1", inputs=[value],
                      outputs=[Tensor(off, layout="NC1HWC0", dtype="float16")])
    opdiff.write_dump(golden / f"Conv2D.conv_1.1.1.{TS}", "conv/1", inputs=[value], outputs=[value])
    return mine, golden, off, value


def test_coordinates_are_logical_nchw(npu_pair) -> None:
    mine, golden, off, value = npu_pair
    detail = single_op_detail(mine, golden, "conv_1", top=3)
    worst = detail.top_absolute[0]
    assert detail.shape == (1, 24, 5, 6) and detail.axes == "N C H W"
    assert worst.coords == (0, 21, 2, 3) and worst.flat == np.ravel_multi_index((0, 21, 2, 3), detail.shape)
    assert worst.my == pytest.approx(float(np.float16(off[0, 21, 2, 3]))) and worst.golden == pytest.approx(float(value[0, 21, 2, 3]))
    assert detail.tensor_index == "conv_1:output:0" and detail.prefix == "conv_1_output_0"
    same = single_op_detail(mine, golden, "conv_1", role="input", index=0, top=3)
    assert same.max_absolute == 0.0
    with pytest.raises(ValueError, match="no input 1"):
        single_op_detail(mine, golden, "conv_1", role="input", index=1)
    with pytest.raises(ValueError, match="no op 'nope'"):
        single_op_detail(mine, golden, "nope")


def test_cli_prints_and_writes_the_reference_files(npu_pair, tmp_path: Path) -> None:
    mine, golden, off, _ = npu_pair
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "opdiff", "compare", "-m", str(mine), "-g", str(golden), "-op", "conv_1", "-o", "0", "-n", "4",
         "-out", str(out), "--element-csv", "-ml", "10000"],
        capture_output=True, text=True, env=child_env(COLUMNS="200", PATH=""),
    )
    assert done.returncode == 0, done.stderr
    assert "top 4 by absolute error" in done.stdout and "0 21 2 3" in done.stdout and "histogram" in done.stdout
    np.testing.assert_array_equal(np.load(out / "conv_1_output_0.npy"), off.astype(np.float16))
    summary = (out / "conv_1_output_0_summary.txt").read_text().splitlines()
    assert summary[:4] == ["TotalCount:720", "NPUDump:conv_1", "GroundTruth:conv_1", "Format:N C H W"]
    assert summary[5].startswith("MaxAbsoluteError:") and float(summary[5].split(":")[1]) == pytest.approx(100, abs=0.1)
    with open(out / "conv_1_output_0_absolute_error_topn.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["Index", "N C H W", "NPUDump", "GroundTruth", "AbsoluteError", "RelativeError"]
    assert len(rows) == 5 and rows[1][1] == "0 21 2 3" and rows[1][4].endswith("\t")
    chunk = (out / "conv_1_output_0_0.csv").read_text().splitlines()
    assert len(chunk) == 721  # header + every element (720 < 10000 lines a chunk)
    zero_golden = np.ravel_multi_index((0, 2, 4, 5), (1, 24, 5, 6))
    assert chunk[1 + zero_golden].endswith(",-")  # 0/0 relative error


def test_element_csv_chunks_and_bad_arguments(tmp_path: Path) -> None:
    mine, golden = tmp_path / "m", tmp_path / "g"
    mine.mkdir()
    golden.mkdir()
    values = np.linspace(-1, 1, 25_000, dtype=np.float32)
    opdiff.write_dump(mine / f"Add.add.1.1.{TS}", "add", outputs=[values * 1.001])
    opdiff.write_dump(golden / f"Add.add.1.1.{TS}", "add", outputs=[values])
    base = [sys.executable, "-m", "opdiff", "compare", "-m", str(mine), "-g", str(golden), "-out", str(tmp_path / "o")]
    done = subprocess.run(base + ["-op", "add", "--element-csv", "-ml", "10000"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    chunks = sorted((tmp_path / "o").glob("add_output_0_[0-9]*.csv"), key=lambda p: int(p.stem.rsplit("_", 1)[1]))
    assert [p.name for p in chunks] == ["add_output_0_0.csv", "add_output_0_10000.csv", "add_output_0_20000.csv"]
    assert [len(p.read_text().splitlines()) for p in chunks] == [10001, 10001, 5001]
    assert chunks[1].read_text().splitlines()[1].startswith("10000,10000 0 0 0,")  # 1-D padded to N C H W
    for bad, message in ((["-op", "missing"], "no op 'missing'"), (["-op", "add", "-i", "0"], "no input 0"),
                         (["-op", "add", "-n", "0"], "-n must be within"), (["-op", "add", "-ml", "5"], "max_line")):
        failed = subprocess.run(base + bad, capture_output=True, text=True, env=child_env(COLUMNS="300", PATH=""))
        assert failed.returncode == 2 and message in failed.stderr, (bad, failed.stderr)


def test_long_op_names_get_short_file_names(tmp_path: Path) -> None:
    from opdiff.report.single_op.files import MAPPING, write_single_op_files

    name = "scope/" * 60 + "conv"
    detail = detail_of_arrays(np.ones(4), np.ones(4), tensor=TensorId(name, "output", 0))
    written = write_single_op_files(detail, tmp_path)
    assert all(len(path.name) < 255 for path in written) and all(path.exists() for path in written)
    short, original = (tmp_path / MAPPING).read_text().strip().split(",")
    assert original == detail.prefix and written[0].name == f"{short}.npy"

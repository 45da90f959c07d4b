"""`opdiff overflow`: overflowing outputs found in execution (timestamp) order, per data type."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import opdiff
from opdiff.dumps import Tensor
from opdiff.overflow import scan_overflow, summary_lines
from _child_env import child_env  # noqa: E402

SHAPE = (1, 16, 4, 4)


def dump(folder: Path, op_type: str, name: str, ts: int, output: np.ndarray, dtype: str, *,
         layout: str = "ND", inputs=()) -> None:
    opdiff.write_dump(folder / f"{op_type}.{name}.{ts % 1000}.1.{1700000000000000 + ts}", name,
                      inputs=list(inputs), outputs=[Tensor(output, layout=layout, dtype=dtype)])


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    # the device layout {time}/{device}/{model}/{model_id}/{step}/: the scan walks down to it
    leaf = tmp_path / "20261129" / "0" / "net" / "1" / "0"
    leaf.mkdir(parents=True)
    ones = np.ones(SHAPE, np.float32)
    with np.errstate(over="ignore"):
        dump(leaf, "Relu", "relu_fine", 1, ones, "float16")
        dump(leaf, "Mul", "fp16_at_max", 7, np.where(np.arange(256).reshape(SHAPE) == 3, 65504.0, 1.0), "float16")
        dump(leaf, "Conv2D", "fp16_inf", 5, ones * 1e6, "float16", layout="NC1HWC0")
        dump(leaf, "MatMul", "fp32_nan", 9, np.where(np.arange(256).reshape(SHAPE) == 0, np.nan, 1.0), "float32")
        dump(leaf, "Add", "bf16_neg_inf", 3, np.full(SHAPE, -np.inf), "bfloat16")
        dump(leaf, "Cast", "fp32_big_is_fine", 2, ones * 1e30, "float32")  # no fp16 limit for fp32
        dump(leaf, "Cast", "int_ignored", 4, np.full(SHAPE, 127), "int8")
        # NaN on an input only: the op's outputs are fine, so the op is not listed
        dump(leaf, "Sub", "nan_input_only", 6, ones, "float32", inputs=[np.full(SHAPE, np.nan, np.float32)])
    (leaf / "not_a_dump.txt").write_text("x")
    return tmp_path


def test_overflowing_ops_in_timestamp_order(folder: Path) -> None:
    scan = scan_overflow(folder)
    assert scan.scanned == 8 and not scan.unreadable
    assert [op.op_name for op in scan.ops] == ["bf16_neg_inf", "fp16_inf", "fp16_at_max", "fp32_nan"]
    why = {op.op_name: op.overflowing[0].why for op in scan.ops}
    assert why == {"bf16_neg_inf": "256 -Inf", "fp16_inf": "256 +Inf", "fp16_at_max": "max |x| = 65504 >= 65504",
                   "fp32_nan": "1 NaN"}
    fp16 = scan.ops[1].overflowing[0]
    assert fp16.dtype == "float16" and fp16.format == "NC1HWC0" and fp16.stats.pos_inf == 256


def test_summary_lists_every_tensor_of_each_op(folder: Path) -> None:
    lines = summary_lines(scan_overflow(folder), limit=2)
    assert lines[0] == "=====[1]=====" and lines[1] == "[Add] bf16_neg_inf"
    assert lines[2].startswith("[overflow][TaskId:3][StreamId:1][Status:output0: 256 -Inf]")
    assert "=====[3]=====" not in lines  # the limit
    assert any(line.startswith("-output.0 [Format: NC1HWC0]") and "[Dtype: float16]" in line for line in lines)


def test_cli_table_summary_file_and_exit_codes(folder: Path, tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "opdiff", "overflow", str(folder), "-out", str(tmp_path / "o"), "--fail"],
                         capture_output=True, text=True, env=child_env(COLUMNS="220", PATH=""))
    assert out.returncode == 4, out.stderr
    assert "first overflow: bf16_neg_inf" in out.stdout and "fp32_nan" in out.stdout and "relu_fine" not in out.stdout
    (summary,) = (tmp_path / "o").glob("overflow_summary_*.txt")
    assert "[MatMul] fp32_nan" in summary.read_text()
    clean = tmp_path / "clean"
    clean.mkdir()
    dump(clean, "Relu", "relu", 1, np.ones(4, np.float32), "float16")
    fine = subprocess.run([sys.executable, "-m", "opdiff", "overflow", "-d", str(clean), "-out", str(tmp_path / "o2"), "--fail"],
                          capture_output=True, text=True)
    assert fine.returncode == 0 and "no overflow" in fine.stdout
    missing = subprocess.run([sys.executable, "-m", "opdiff", "overflow", str(tmp_path / "nope")], capture_output=True, text=True)
    assert missing.returncode == 2 and "dump folder is expected" in missing.stderr

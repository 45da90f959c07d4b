"""`opdiff overflow`: overflowing outputs found in execution (timestamp) order, per data type."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import opdiff
from opdiff.dumps import Tensor
from opdiff.engine.overflow_scan import scan_overflow, summary_lines
from tests.support.child_env import child_env

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


@pytest.mark.cli_output
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


# --- Opdebug records (docs/reference/reference-tool.md §6.5) merged with the tensor scan -------

from opdiff.dumps.opdebug import AccType  # noqa: E402
from opdiff.dumps.opdebug_writer import aicpu_entry, core_entry, old_entries, sdma_entry, write_opdebug_dump  # noqa: E402
from opdiff.engine.overflow_scan import Source  # noqa: E402

T0 = 1700000000000000


def npu(folder: Path, op_type: str, name: str, task: int, stream: int, ts: int, output: np.ndarray, *, dtype: str = "float16",
        suffix: str = "") -> Path:
    return opdiff.write_dump(folder / f"{op_type}.{name}.{task}.{stream}.{T0 + ts}{suffix}", name,
                             inputs=[np.ones(SHAPE, np.float32)], outputs=[Tensor(output, dtype=dtype)])


@pytest.fixture()
def recorded(tmp_path: Path) -> Path:
    """A step folder where the device wrote Opdebug records: one per unit kind, both versions and the
    old form, plus an op only the tensor scan finds, one both find, an entry whose op has no dump,
    an invalid entry and a record that cannot be decoded."""
    leaf = tmp_path / "rec" / "20261129" / "0" / "net" / "1" / "0"
    leaf.mkdir(parents=True)
    ones, big = np.ones(SHAPE, np.float32), np.full(SHAPE, 7e4, np.float32)
    with np.errstate(over="ignore"):
        npu(leaf, "Conv2D", "conv", 10, 1, 10, ones)                      # AIC (v1) names it; its tensors look fine
        npu(leaf, "Mul", "mul", 11, 1, 20, big)                           # AIV (v0) names it and it is inf: both
        npu(leaf, "Where", "where", 12, 2, 30, ones, dtype="float32")     # AICPU
        npu(leaf, "MemCopy", "copy", 13, 2, 40, ones)                     # SDMA
        npu(leaf, "Add", "add", 14, 1, 50, ones)                          # old form, AI core status
        npu(leaf, "Exp", "exp", 15, 1, 60, big)                           # tensor scan only
        npu(leaf, "Relu", "relu", 16, 1, 70, ones)                        # nothing
    write_opdebug_dump(leaf, [core_entry(task_id=10, stream_id=1, status=(0x10, 0, 0, 0)),
                              core_entry(valid=False, task_id=16, stream_id=1, status=(1, 1, 1, 1))],
                       version=1, timestamp=T0 + 11)
    write_opdebug_dump(leaf, [core_entry(acc_type=AccType.AIV, task_id=11, stream_id=1, status=(0x20,))], version=0,
                       timestamp=T0 + 21)
    write_opdebug_dump(leaf, [aicpu_entry(task_id=12, stream_id=2, status=(0x3,)), sdma_entry(task_id=13, stream_id=2, status=(0x4,))],
                       version=1, timestamp=T0 + 41)
    write_opdebug_dump(leaf, old_entries(task_id=14, stream_id=1, ai_core_status=0x8), timestamp=T0 + 51)
    write_opdebug_dump(leaf, [core_entry(task_id=99, stream_id=1, status=(0x1,))], version=0, timestamp=T0 + 80)
    write_opdebug_dump(leaf, b"\x01" * 100, timestamp=T0 + 90)
    return tmp_path / "rec"


def test_records_are_matched_to_their_ops_and_merged_with_the_tensor_scan(recorded: Path) -> None:
    scan = scan_overflow(recorded)
    assert scan.scanned == 7 and scan.records == 6
    (bad_path, reason), = scan.unreadable
    assert bad_path.name.endswith(str(T0 + 90)) and "not an Opdebug record" in reason
    found = [(op.op_name, [e.entry.unit for e in op.debug], [s.value for s in op.sources]) for op in scan.ops]
    assert found == [
        ("conv", ["AIC"], ["Opdebug record"]),
        ("mul", ["AIV"], ["Opdebug record", "tensor scan"]),
        ("where", ["AICPU"], ["Opdebug record"]),
        ("copy", ["SDMA"], ["Opdebug record"]),
        ("add", ["AI core"], ["Opdebug record"]),
        ("exp", [], ["tensor scan"]),
        ("", ["AIC"], ["Opdebug record"]),  # task 99: no dump
    ]
    conv = scan.ops[0]
    assert conv.debug[0].entry.status == (0x10, 0, 0, 0) and conv.path.name.startswith("Conv2D.conv.10.1")
    assert [(t.role, t.index, t.dtype) for t in conv.tensors] == [("input", 0, "float32"), ("output", 0, "float16")]
    assert conv.tensors[1].stats.max == 1.0
    assert scan.ops[-1].path is None and scan.ops[-1].task_id == 99 and scan.ops[-1].timestamp == T0 + 80


def test_summary_blocks_follow_the_reference(recorded: Path) -> None:
    text = "\n".join(summary_lines(scan_overflow(recorded)))
    block = text.split("=====[2]=====")[1].split("=====[3]=====")[0].strip().splitlines()
    assert block[:5] == ["[Mul] mul", "[AIV][TaskId:11][StreamId:1][Status:0x20]", f"[timestamp:{T0 + 20}]",
                         "[found by:Opdebug record, tensor scan]", f"[record:{recorded / '20261129/0/net/1/0' / f'Opdebug.Node_OpDebug.65535.0.{T0 + 21}'}]"]
    assert block[5].startswith("[file:") and block[5].endswith(f"Mul.mul.11.1.{T0 + 20}]")
    assert block[6].startswith("-input.0 [Format: ND] [Shape: [1, 16, 4, 4]] [Dtype: float32] [Max: 1] [Min: 1] [Mean: 1]")
    assert block[7].startswith("-output.0 [Format: ND]") and block[7].endswith("[Overflow: 256 +Inf]")
    assert "[AIC][TaskId:10][StreamId:1][Status:0x10,0x0,0x0,0x0]" in text
    assert "[AI core][TaskId:14][StreamId:1][Status:0x8]" in text
    assert "[overflow][TaskId:15][StreamId:1][Status:output0: 256 +Inf]" in text
    assert "[unknown] no NPU dump with TaskId 99 StreamId 1 found" in text


def test_a_folder_without_records_gets_the_tensor_scan_and_records_only_skips_it(recorded: Path, folder: Path) -> None:
    plain = scan_overflow(folder / "20261129")
    assert plain.records == 0 and len(plain.ops) == 4 and all(op.sources == (Source.TENSOR_SCAN,) for op in plain.ops)
    only = scan_overflow(recorded, tensor_scan=False)
    assert [op.op_name for op in only.ops] == ["conv", "mul", "where", "copy", "add", ""]


def test_max_records_decodes_only_the_first_records(recorded: Path) -> None:
    scan = scan_overflow(recorded, max_records=2, tensor_scan=False)
    assert scan.records == 2 and [op.op_name for op in scan.ops] == ["conv", "mul"]


def test_ffts_context_and_thread_ids_pick_the_slice(tmp_path: Path) -> None:
    ones = np.ones(SHAPE, np.float32)
    for thread in (0, 1):
        npu(tmp_path, "Conv2D", "conv", 5, 1, 1 + thread, ones, suffix=f".4.2.{thread}.0")
    write_opdebug_dump(tmp_path, [core_entry(task_id=5, stream_id=1, context_id=2, thread_id=1)], version=0, timestamp=T0 + 9)
    (op,) = scan_overflow(tmp_path).ops
    assert op.path.name == f"Conv2D.conv.5.1.{T0 + 2}.4.2.1.0"
    write_opdebug_dump(tmp_path, [core_entry(task_id=5, stream_id=1, context_id=3, thread_id=1)], version=0, timestamp=T0 + 10)
    assert [op.path for op in scan_overflow(tmp_path).ops][1] is None  # context 3 has no slice dump


def test_repeated_tasks_match_the_latest_run_before_the_record(tmp_path: Path) -> None:
    ones = np.ones(SHAPE, np.float32)
    for ts in (10, 20):
        npu(tmp_path, "Mul", "mul", 7, 1, ts, ones)
        write_opdebug_dump(tmp_path, [core_entry(task_id=7, stream_id=1)], version=0, timestamp=T0 + ts + 1)
    assert [op.timestamp for op in scan_overflow(tmp_path).ops] == [T0 + 10, T0 + 20]


def test_mapping_csv_names_and_the_depth_limit(tmp_path: Path) -> None:
    ones = np.ones(SHAPE, np.float32)
    long_name = f"MatMul.{'x' * 40}.3.1.{T0 + 1}"
    opdiff.write_dump(tmp_path / "123456", "x" * 40, outputs=[Tensor(ones, dtype="float16")])
    (tmp_path / "mapping.csv").write_text(f"123456,{long_name}\n")
    write_opdebug_dump(tmp_path, [core_entry(task_id=3, stream_id=1)], version=0, name="654321")
    (tmp_path / "mapping.csv").write_text(f"123456,{long_name}\n654321,Opdebug.Node_OpDebug.1.1.{T0 + 2}\n")
    deep = tmp_path.joinpath(*["d"] * 31)
    deep.mkdir(parents=True)
    write_opdebug_dump(deep.parent, [core_entry(task_id=3, stream_id=1)], version=0, timestamp=T0 + 3)  # 30 levels down: read
    write_opdebug_dump(deep, [core_entry(task_id=3, stream_id=1)], version=0, timestamp=T0 + 4)  # 31: not read
    scan = scan_overflow(tmp_path)
    assert scan.records == 2 and [op.op_name for op in scan.ops] == ["x" * 40]
    assert [f.record_timestamp for f in scan.ops[0].debug] == [T0 + 2, T0 + 3]


def test_cli_says_which_source_found_each_op(recorded: Path, tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "opdiff", "overflow", "-d", str(recorded), "-out", str(tmp_path / "o"), "-n", "3",
                          "--fail"], capture_output=True, text=True, env=child_env(COLUMNS="260"))
    assert out.returncode == 4, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.strip()[:1].isdigit()]
    assert len(rows) == 3 and "Opdebug + tensors" in rows[1] and "AIV" in rows[1] and "0x20" in rows[1]
    assert "Opdebug" in rows[0] and "conv" in rows[0] and "first overflow: conv (Conv2D)" in out.stdout
    (summary,) = (tmp_path / "o").glob("overflow_summary_*.txt")
    assert summary.read_text().count("=====[") == 3
    assert "unreadable:" not in out.stdout  # -n 3: the bad record is not among the first three


def test_summary_into_a_full_folder_is_a_clear_error_and_leaves_nothing(recorded: Path, tmp_path: Path) -> None:
    from tests.reliability.test_fault_injection import tmpfs

    with tmpfs(tmp_path / "full", "size=4k") as full:
        (full / "filler").write_bytes(b"x" * 4096)
        out = subprocess.run([sys.executable, "-m", "opdiff", "overflow", str(recorded), "-out", str(full)],
                             capture_output=True, text=True, env=child_env(COLUMNS="200"))
        assert out.returncode == 2 and "No space left on device" in out.stderr, out.stderr
        assert sorted(p.name for p in full.iterdir()) == ["filler"]

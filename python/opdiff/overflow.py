"""Overflow scan of one dump folder (msaccucmp-behaviour.md §6.4-6.5, plus bf16/fp32 NaN/Inf): which
ops produce outputs that left their data type's range, in timestamp (execution) order.

An output overflows when it is float16 with max |x| >= 65504 or any NaN/Inf, or bfloat16, float32 or
float64 with any NaN/Inf. Statistics come from the core (one pass per tensor, layouts decoded on the
fly). The device's Opdebug.Node_OpDebug records are not parsed: the scan reads the tensors themselves.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Iterable, List, Optional, Tuple, Union

from opdiff._metrics import SideStats
from opdiff.dumps import DumpFormatError, DumpTensor, read_dump, tensor_stats
from opdiff.dumps.discovery import NpuDumpName, parse_npu_dump_name, timestamp_sort_key

PathLike = Union[str, "os.PathLike[str]"]
FP16_MAX = 65504.0
CHECKED_DTYPES = ("float16", "bfloat16", "float32", "float64")


@dataclass(frozen=True)
class TensorReport:
    """One input or output of an op with its statistics; ``why`` is set when it overflows."""

    role: str
    index: int
    dtype: str
    format: str
    shape: Tuple[int, ...]
    stats: Optional[SideStats]
    why: Optional[str] = None


@dataclass(frozen=True)
class OverflowOp:
    """An op with at least one overflowing output, and every tensor of its dump."""

    op_type: str
    op_name: str
    task_id: int
    stream_id: Optional[int]
    timestamp: int
    path: Path
    tensors: Tuple[TensorReport, ...]

    @property
    def overflowing(self) -> List[TensorReport]:
        return [t for t in self.tensors if t.why is not None]


@dataclass
class OverflowScan:
    """The result of a scan: overflowing ops in timestamp order, how many dumps were read, and the
    files that could not be (with the reason)."""

    folder: Path
    ops: List[OverflowOp]
    scanned: int
    unreadable: List[Tuple[Path, str]]


def overflow_reason(dtype: Optional[str], stats: SideStats) -> Optional[str]:
    """Why a tensor of `dtype` with these statistics overflows, or None.

    >>> from opdiff import SideStats
    >>> overflow_reason("float16", SideStats(-1.0, 65504.0, 0.0, 1.0, 0, 0, 0))
    'max |x| = 65504 >= 65504'
    >>> overflow_reason("float32", SideStats(-1.0, 1e30, 0.0, 1.0, 2, 0, 0)), overflow_reason("int8", SideStats(0, 0, 0, 0, 0, 0, 0))
    ('2 NaN', None)
    """
    if dtype not in CHECKED_DTYPES:
        return None
    special = [f"{count} {name}" for count, name in ((stats.nan, "NaN"), (stats.pos_inf, "+Inf"), (stats.neg_inf, "-Inf")) if count]
    if special:
        return ", ".join(special)
    if dtype == "float16":
        biggest = max(abs(stats.min), abs(stats.max)) if not math.isnan(stats.max) else math.nan
        if biggest >= FP16_MAX:
            return f"max |x| = {biggest:g} >= {FP16_MAX:g}"
    return None


def _dump_names(folder: Path, max_depth: int = 30) -> Iterable[NpuDumpName]:
    base = len(folder.parts)
    for root, subfolders, names in os.walk(folder):
        if len(Path(root).parts) - base >= max_depth:
            subfolders[:] = []
        subfolders.sort()
        for name in names:
            parsed = parse_npu_dump_name(os.path.join(root, name), with_fusion_rule=False)
            if parsed is not None:
                yield parsed


def _tensor_report(tensor: DumpTensor, threads: Optional[int]) -> TensorReport:
    stats = tensor_stats(tensor, threads=threads) if tensor.dtype is not None and tensor.shape is not None else None
    dtype = tensor.dtype or tensor.data_type_name
    why = overflow_reason(tensor.dtype, stats) if stats is not None and tensor.role.value == "output" else None
    return TensorReport(tensor.role.value, tensor.index, dtype, tensor.format_name, tuple(tensor.shape), stats, why)


def scan_overflow(folder: PathLike, *, threads: Optional[int] = None) -> OverflowScan:
    """Scan every NPU dump under `folder` (recursively) for overflowing outputs.

    >>> import numpy as np, opdiff, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> _ = opdiff.write_dump(os.path.join(d, "Mul.mul.3.1.1700000000000003"), "mul", outputs=[np.full(4, np.inf, np.float32)])
    >>> _ = opdiff.write_dump(os.path.join(d, "Add.add.2.1.1700000000000002"), "add", outputs=[np.ones(4, np.float32)])
    >>> [(op.op_name, op.overflowing[0].why) for op in scan_overflow(d).ops]
    [('mul', '4 +Inf')]
    """
    root = Path(folder)
    if not root.is_dir():
        raise ValueError(f"{root}: a dump folder is expected here")
    names = sorted(_dump_names(root), key=lambda n: (timestamp_sort_key(n.timestamp), n.timestamp, n.path))
    ops: List[OverflowOp] = []
    unreadable: List[Tuple[Path, str]] = []
    for name in names:
        try:
            dump = read_dump(name.path)
            outputs = [_tensor_report(t, threads) for t in dump.outputs]
            if not any(t.why for t in outputs):
                continue
            inputs = [_tensor_report(t, threads) for t in dump.inputs]
        except (DumpFormatError, OSError, ValueError) as error:
            unreadable.append((Path(name.path), str(error)))
            continue
        ops.append(OverflowOp(name.op_type, dump.op_name or name.op_name, name.task_id, name.stream_id, name.timestamp,
                              Path(name.path), tuple(inputs + outputs)))
    return OverflowScan(root, ops, len(names), unreadable)


def _number(value: float) -> str:
    return f"{value:.6g}"


def summary_lines(scan: OverflowScan, limit: Optional[int] = None) -> List[str]:
    """The summary text, per op as the reference's overflow_summary: a banner, the op, task and
    stream, the timestamp, then one line per input and output."""
    lines: List[str] = []
    for k, op in enumerate(scan.ops[:limit], start=1):
        status = "; ".join(f"{t.role}{t.index}: {t.why}" for t in op.overflowing)
        lines += [f"=====[{k}]=====", f"[{op.op_type}] {op.op_name}",
                  f"[overflow][TaskId:{op.task_id}][StreamId:{'' if op.stream_id is None else op.stream_id}][Status:{status}]",
                  f"[timestamp:{op.timestamp}]", f"[file:{op.path}]"]
        for t in op.tensors:
            stats = (f"[Max: {_number(t.stats.max)}] [Min: {_number(t.stats.min)}] [Mean: {_number(t.stats.mean)}] "
                     f"[NaN: {t.stats.nan}] [+Inf: {t.stats.pos_inf}] [-Inf: {t.stats.neg_inf}]") if t.stats else "[not decoded]"
            lines.append(f"-{t.role}.{t.index} [Format: {t.format}] [Shape: {list(t.shape)}] [Dtype: {t.dtype}] {stats}")
    if not scan.ops:
        lines.append(f"no overflow in {scan.scanned} dump files")
    return lines


def write_overflow_summary(scan: OverflowScan, out: PathLike, limit: Optional[int] = None, now: Optional[datetime] = None) -> Path:
    """``overflow_summary_{YYYYmmddHHMMSS}.txt`` in `out`, through a temporary name."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"overflow_summary_{(now or datetime.now()).strftime('%Y%m%d%H%M%S')}.txt"
    partial = path.with_name(path.name + ".partial")
    partial.write_text("\n".join(summary_lines(scan, limit)) + "\n", encoding="utf-8")
    os.replace(partial, path)
    return path


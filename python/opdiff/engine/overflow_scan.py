"""Overflow analysis of a dump folder (docs/reference/reference-tool.md §6.4-6.5, plus bf16/fp32 NaN/Inf): which
ops overflowed, in timestamp (execution) order, found two ways and merged per op:

* the device's Opdebug records (``Opdebug.Node_OpDebug.*`` dumps, decoded by
  :mod:`opdiff.dumps.opdebug`): each valid entry names a task and stream, matched to the NPU dump of
  that op (:mod:`opdiff.dumps.overflow_files`);
* a tensor scan of every NPU dump: an output overflows by the rule of :mod:`opdiff.numerics.overflow`
  (float16 with max |x| >= 65504 or any NaN/Inf, any other float type with a NaN/Inf). Statistics
  come from the core (one pass per tensor, layouts decoded on the fly).

A folder without Opdebug records gets the tensor scan alone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

from opdiff.conventions.dump_names import NpuDumpName
from opdiff.dumps import DumpFormatError, DumpTensor, read_dump, tensor_stats
from opdiff.dumps.discovery import timestamp_sort_key
from opdiff.dumps.opdebug import Entry, format_status, read_opdebug
from opdiff.dumps.overflow_files import DumpLookup, find_dumps
from opdiff.fileio.atomic import RESULT_MODE, write_text
from opdiff.numerics.overflow import FP16_MAX, largest_magnitude, overflows
from opdiff.numerics.values import SideStats
from opdiff.report.file_names import overflow_summary_file_name

PathLike = Union[str, "os.PathLike[str]"]


class Source(str, Enum):
    """What found an overflowing op."""

    OPDEBUG = "Opdebug record"
    TENSOR_SCAN = "tensor scan"


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
class DebugFinding:
    """One valid entry of an Opdebug record, and the record's file and timestamp."""

    record_path: Path
    record_timestamp: int
    entry: Entry


@dataclass(frozen=True)
class OverflowOp:
    """An overflowing op and every tensor of its dump. ``debug`` holds the Opdebug entries that
    named it; an entry whose op has no dump here gives an op with ``path`` None, no name and no
    tensors (task and stream from the entry)."""

    op_type: str
    op_name: str
    task_id: int
    stream_id: Optional[int]
    timestamp: int
    path: Optional[Path]
    tensors: Tuple[TensorReport, ...]
    debug: Tuple[DebugFinding, ...] = ()

    @property
    def overflowing(self) -> List[TensorReport]:
        return [t for t in self.tensors if t.why is not None]

    @property
    def sources(self) -> Tuple[Source, ...]:
        """Opdebug record when an entry named it, tensor scan when a tensor of it overflows."""
        return tuple(s for s, found in ((Source.OPDEBUG, self.debug), (Source.TENSOR_SCAN, self.overflowing)) if found)


@dataclass
class OverflowScan:
    """The result: overflowing ops in timestamp order, how many NPU dumps were scanned and Opdebug
    records decoded, and the files that could not be read (with the reason)."""

    folder: Path
    ops: List[OverflowOp]
    scanned: int
    unreadable: List[Tuple[Path, str]]
    records: int = 0


def overflow_reason(dtype: Optional[str], stats: SideStats) -> Optional[str]:
    """Why a tensor of `dtype` with these statistics overflows, or None.

    >>> from opdiff import SideStats
    >>> overflow_reason("float16", SideStats(-1.0, 65504.0, 0.0, 1.0, 0, 0, 0))
    'max |x| = 65504 >= 65504'
    >>> overflow_reason("float32", SideStats(-1.0, 1e30, 0.0, 1.0, 2, 0, 0)), overflow_reason("int8", SideStats(0, 0, 0, 0, 0, 0, 0))
    ('2 NaN', None)
    """
    if not overflows(dtype, stats):
        return None
    special = [f"{count} {name}" for count, name in ((stats.nan, "NaN"), (stats.pos_inf, "+Inf"), (stats.neg_inf, "-Inf")) if count]
    return ", ".join(special) if special else f"max |x| = {largest_magnitude(stats):g} >= {FP16_MAX:g}"


def _tensor_report(tensor: DumpTensor, threads: Optional[int]) -> TensorReport:
    stats = tensor_stats(tensor, threads=threads) if tensor.dtype is not None and tensor.shape is not None else None
    dtype = tensor.dtype or tensor.data_type_name
    why = overflow_reason(tensor.dtype, stats) if stats is not None and tensor.role.value == "output" else None
    return TensorReport(tensor.role.value, tensor.index, dtype, tensor.format_name, tuple(tensor.shape), stats, why)


def _op_from_dump(name: NpuDumpName, threads: Optional[int], debug: Tuple[DebugFinding, ...]) -> Optional[OverflowOp]:
    """The op of one dump when it overflows (or an Opdebug entry named it), else None. Inputs are
    read only for ops that are reported."""
    dump = read_dump(name.path)
    outputs = [_tensor_report(t, threads) for t in dump.outputs]
    if not debug and not any(t.why for t in outputs):
        return None
    inputs = [_tensor_report(t, threads) for t in dump.inputs]
    return OverflowOp(name.op_type, dump.op_name or name.op_name, name.task_id, name.stream_id, name.timestamp,
                      Path(name.path), tuple(inputs + outputs), debug)


def _unmatched(finding: DebugFinding) -> OverflowOp:
    entry = finding.entry
    return OverflowOp("", "", entry.task_id, entry.stream_id, finding.record_timestamp, None, (), (finding,))


def scan_overflow(folder: PathLike, *, threads: Optional[int] = None, max_records: Optional[int] = None,
                  tensor_scan: bool = True) -> OverflowScan:
    """Find the overflowing ops under `folder` (recursively): from the Opdebug records (the first
    `max_records` by timestamp; all by default) and, unless ``tensor_scan=False``, from the tensors
    of every NPU dump.

    >>> import numpy as np, opdiff, tempfile, os
    >>> from opdiff.dumps.opdebug_writer import core_entry, write_opdebug_dump
    >>> d = tempfile.mkdtemp()
    >>> _ = opdiff.write_dump(os.path.join(d, "Mul.mul.3.1.1700000000000003"), "mul", outputs=[np.full(4, np.inf, np.float32)])
    >>> _ = opdiff.write_dump(os.path.join(d, "Add.add.2.1.1700000000000002"), "add", outputs=[np.ones(4, np.float32)])
    >>> _ = write_opdebug_dump(d, [core_entry(task_id=2, stream_id=1)], version=0, timestamp=1700000000000004)
    >>> [(op.op_name, [s.value for s in op.sources]) for op in scan_overflow(d).ops]
    [('add', ['Opdebug record']), ('mul', ['tensor scan'])]
    """
    root = Path(folder)
    if not root.is_dir():
        raise ValueError(f"{root}: a dump folder is expected here")
    found = find_dumps(root)
    unreadable: List[Tuple[Path, str]] = []
    findings: Dict[str, List[DebugFinding]] = {}
    lone: List[OverflowOp] = []
    lookup = DumpLookup(found.dumps)
    records = found.records[:max_records]
    for record in records:
        try:
            decoded = read_opdebug(record.path)
        except (DumpFormatError, OSError) as error:
            unreadable.append((Path(record.path), str(error)))
            continue
        for entry in decoded.overflowing:
            finding = DebugFinding(Path(record.path), record.timestamp, entry)
            target = lookup.find(entry, record)
            if target is None:
                lone.append(_unmatched(finding))
            else:
                findings.setdefault(target.path, []).append(finding)
    ops: List[OverflowOp] = list(lone)
    for name in found.dumps:
        debug = tuple(findings.get(name.path, ()))
        if not debug and not tensor_scan:
            continue
        try:
            op = _op_from_dump(name, threads, debug)
        except (DumpFormatError, OSError, ValueError) as error:
            unreadable.append((Path(name.path), str(error)))
            ops += [_unmatched(finding) for finding in debug]  # the record stands without its op's tensors
            continue
        if op is not None:
            ops.append(op)
    ops.sort(key=lambda op: (timestamp_sort_key(op.timestamp), op.timestamp, str(op.path or "")))
    return OverflowScan(root, ops, len(found.dumps), unreadable, len(records))


def _number(value: float) -> str:
    return f"{value:.6g}"


def op_kind(op: OverflowOp) -> str:
    """The ``[type]`` of a summary block: the reporting units of the Opdebug entries (AIC, AIV,
    AICPU, SDMA, or the old form's DHA atomic / L2 atomic / AI core), else ``overflow``."""
    units = list(dict.fromkeys(f.entry.unit for f in op.debug))
    return "/".join(units) if units else "overflow"


def op_status(op: OverflowOp) -> str:
    """The ``[Status:]`` of a summary block: the entries' status words in hex, else the tensor
    scan's reasons."""
    if op.debug:
        return "; ".join(format_status(f.entry.status) for f in op.debug)
    return "; ".join(f"{t.role}{t.index}: {t.why}" for t in op.overflowing)


def op_title(op: OverflowOp) -> str:
    if op.path is None:
        return f"[unknown] no NPU dump with TaskId {op.task_id} StreamId {op.stream_id} found"
    return f"[{op.op_type}] {op.op_name}"


def summary_lines(scan: OverflowScan, limit: Optional[int] = None) -> List[str]:
    """The summary text, per op as the reference's overflow_summary: a banner, the op, the unit with
    task, stream and status, the timestamp; then (opdiff's additions) what found it, the record and
    dump files; then one line per input and output with its statistics."""
    lines: List[str] = []
    for k, op in enumerate(scan.ops[:limit], start=1):
        stream = "" if op.stream_id is None else op.stream_id
        lines += [f"=====[{k}]=====", op_title(op),
                  f"[{op_kind(op)}][TaskId:{op.task_id}][StreamId:{stream}][Status:{op_status(op)}]",
                  f"[timestamp:{op.timestamp}]", f"[found by:{', '.join(s.value for s in op.sources)}]"]
        lines += [f"[record:{finding.record_path}]" for finding in op.debug]
        if op.path is not None:
            lines.append(f"[file:{op.path}]")
        for t in op.tensors:
            stats = (f"[Max: {_number(t.stats.max)}] [Min: {_number(t.stats.min)}] [Mean: {_number(t.stats.mean)}] "
                     f"[NaN: {t.stats.nan}] [+Inf: {t.stats.pos_inf}] [-Inf: {t.stats.neg_inf}]") if t.stats else "[not decoded]"
            flag = f" [Overflow: {t.why}]" if t.why else ""
            lines.append(f"-{t.role}.{t.index} [Format: {t.format}] [Shape: {list(t.shape)}] [Dtype: {t.dtype}] {stats}{flag}")
    if not scan.ops:
        lines.append(f"no overflow in {scan.scanned} dump files and {scan.records} Opdebug records")
    return lines


def write_overflow_summary(scan: OverflowScan, out: PathLike, limit: Optional[int] = None, now: Optional[datetime] = None) -> Path:
    """``overflow_summary_{YYYYmmddHHMMSS}.txt`` in `out`, through a temporary name."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / overflow_summary_file_name(now)
    return write_text(path, "\n".join(summary_lines(scan, limit)) + "\n", mode=RESULT_MODE)


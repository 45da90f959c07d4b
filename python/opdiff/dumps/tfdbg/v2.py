"""tfdbg v2 dump roots (``tf.debugging.experimental.enable_dump_debug_info``): a folder holding
``{prefix}.metadata`` and TFRecord streams of DebugEvent protos beside it, ``.execution`` (one
record per eager op or function call), ``.graph_execution_traces`` (one per op output inside a
graph, FULL_TENSOR mode holding the tensor) and others opdiff does not need.

A step is one execution of the traced function: the function most executions called (the later
winning a tie; model.number_steps). TensorFlow writes an execution's record after the graph ran,
so a trace belongs to the first function execution not older than it; traces after the last one
form a run of their own, listed, not counted. Streams are read record by record, and a trace
stream only as far as each record's op and slot: the index keeps them and the record's offset, and
the tensor (its data CRC checked then) is read when it is compared."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Dict, List, Optional, Tuple

import numpy as np

from opdiff.dumps.tfdbg import tfdbg_pb2 as pb
from opdiff.dumps.tfdbg.detect import METADATA_SUFFIX
from opdiff.dumps.tfdbg.model import Run, TensorRef, TfdbgRoot, number_steps
from opdiff.dumps.tfdbg.tensors import TensorDamaged, TensorSkipped, span_to_numpy, to_numpy
from opdiff.dumps.tfdbg.tfrecord import RecordError, read_record_at, read_records, scan_records
from opdiff.dumps.tfdbg.trace_head import TraceHead, trace_head
from opdiff.dumps.tfdbg.wire import LENGTH, VARINT, TensorSpan, singular, submessage, tensor_span

EXECUTION_SUFFIX = ".execution"
TRACES_SUFFIX = ".graph_execution_traces"
# Enough of a trace record for its op name and slot (trace_head); the tensor is not read.
HEAD_BYTES = 4096


@dataclass(frozen=True)
class _Execution:
    wall_time: float
    function: str
    offset: int


def _seconds(wall_time: float) -> float:
    """A record's wall time, 0 where it is none a clock gives (NaN, infinite, negative or past the
    year 5000): such a record still orders and names its tensor."""
    return wall_time if math.isfinite(wall_time) and 0 <= wall_time < 1e11 else 0.0


def _streams(path: Path, suffix: str) -> List[Path]:
    return sorted(path / name for name in os.listdir(path) if name.endswith(suffix) or f"{suffix}." in name)


def _decode(data: bytes) -> pb.DebugEvent:
    try:
        return pb.DebugEvent.FromString(data)
    except Exception as error:  # protobuf's DecodeError, and what a hostile varint raises
        raise TensorDamaged(f"not a DebugEvent proto ({type(error).__name__}: {error})") from None


def _read_executions(path: Path, problems: List[Tuple[str, str]]) -> List[_Execution]:
    found: List[_Execution] = []
    for stream in _streams(path, EXECUTION_SUFFIX):
        try:
            with open(stream, "rb") as handle:
                for record in read_records(handle):
                    try:
                        event = _decode(record.data)
                    except TensorDamaged as error:
                        problems.append((f"{stream}@{record.offset}", str(error)))
                        continue
                    if event.HasField("execution") and event.execution.graph_id:
                        found.append(_Execution(_seconds(event.wall_time), event.execution.op_type, record.offset))
        except (OSError, RecordError) as error:
            problems.append((str(stream), str(error)))
    return sorted(found, key=lambda execution: execution.wall_time)


def _read_traces(path: Path, problems: List[Tuple[str, str]]) -> List[Tuple[float, TensorRef]]:
    traces: List[Tuple[float, TensorRef]] = []
    for stream in _streams(path, TRACES_SUFFIX):
        try:
            with open(stream, "rb") as handle:
                _scan_traces(stream, handle, traces, problems)
        except (OSError, RecordError) as error:
            problems.append((str(stream), str(error)))
    return sorted(traces, key=lambda trace: trace[0])


def _scan_traces(stream: Path, handle: BinaryIO, traces: List[Tuple[float, TensorRef]],
                 problems: List[Tuple[str, str]]) -> None:
    """Index a trace stream from each record's first bytes (trace_head), reading a whole record
    only where those do not say; a damaged or summary-only trace keeps its place, and reading it
    says why (read_v2_tensor)."""
    for head in scan_records(handle, HEAD_BYTES):
        found = trace_head(head.prefix)
        if found is None:
            record = read_record_at(handle, head.offset) if head.length > len(head.prefix) else None
            try:
                event = _decode(record.data if record is not None else head.prefix)
            except TensorDamaged as error:
                problems.append((f"{stream}@{head.offset}", str(error)))
                continue
            if not event.HasField("graph_execution_trace"):
                continue
            trace = event.graph_execution_trace
            found = TraceHead(event.wall_time, trace.op_name, trace.output_slot, trace.tensor_debug_mode)
        seconds = _seconds(found.wall_time)
        traces.append((seconds, TensorRef(found.op_name, found.output_slot, int(seconds * 1e6), str(stream), head.offset)))


def read_v2_root(path: Path) -> TfdbgRoot:
    """The executions of a v2 root as runs, the traced function's numbered as steps."""
    problems: List[Tuple[str, str]] = []
    executions = _read_executions(path, problems)
    traces = _read_traces(path, problems)
    groups: Dict[int, List[TensorRef]] = {}
    cursor = 0
    for wall_time, ref in traces:
        while cursor < len(executions) and executions[cursor].wall_time < wall_time:
            cursor += 1
        groups.setdefault(cursor, []).append(ref)
    numbers = number_steps([frozenset({execution.function}) for execution in executions])
    runs = [Run(i, f"execution {i}: {execution.function}", (execution.function,), numbers[i], tuple(groups.get(i, ())))
            for i, execution in enumerate(executions)]
    if not executions and traces:
        runs.append(Run(0, "graph execution traces (no .execution record)", (), 0, tuple(groups.get(0, ()))))
    elif len(executions) in groups:
        runs.append(Run(len(executions), "traces after the last execution", (), None, tuple(groups[len(executions)])))
    rule = "v2: the executions of the function most executions called"
    return TfdbgRoot(path, 2, tuple(runs), tuple(problems), rule)


def read_v2_tensor(ref: TensorRef) -> np.ndarray:
    """The array of one trace record (its CRCs checked again: the file may have changed)."""
    with open(ref.path, "rb") as handle:
        try:
            record = read_record_at(handle, ref.offset)
        except RecordError as error:
            raise TensorDamaged(str(error)) from None
    if record.damage is not None:
        raise TensorDamaged(record.damage)
    span = _located(record.data)
    if span is not None:
        return span_to_numpy(record.data, span)
    event = _decode(record.data)
    if not event.HasField("graph_execution_trace"):
        raise TensorDamaged(f"offset {ref.offset}: not a graph execution trace")
    trace = event.graph_execution_trace
    if trace.tensor_debug_mode != pb.FULL_TENSOR:
        raise TensorSkipped(f"dumped in {pb.TensorDebugMode.Name(trace.tensor_debug_mode)} mode: a summary, not the "
                            "tensor (dump with tensor_debug_mode=\"FULL_TENSOR\")")
    return to_numpy(trace.tensor_proto)


_EVENT_FIELDS = frozenset({1, 2, 10})  # wall_time, step, graph_execution_trace
_TRACE_FIELDS = frozenset({1, 2, 3, 4, 5, 6})  # context id, op name, slot, mode, tensor, device


def _located(data: bytes) -> Optional[TensorSpan]:
    """Where a FULL_TENSOR trace's tensor_content lies in the record (None: let protobuf read it)."""
    try:
        trace = submessage(data, 0, len(data), 10, _EVENT_FIELDS)
        found = singular(data, *trace, _TRACE_FIELDS) if trace else None
    except IndexError:
        return None
    mode, tensor = (found.get(4), found.get(5)) if found is not None else (None, None)
    if mode is None or mode[:2] != (VARINT, pb.FULL_TENSOR) or tensor is None or tensor[0] != LENGTH:
        return None
    return tensor_span(data, tensor[1], tensor[2])


def first_version(path: Path) -> Optional[str]:
    """The TensorFlow version the ``.metadata`` stream names (for `opdiff info`)."""
    for stream in _streams(path, METADATA_SUFFIX):
        try:
            with open(stream, "rb") as handle:
                for record in read_records(handle):
                    event = _decode(record.data)
                    if event.HasField("debug_metadata"):
                        return event.debug_metadata.tensorflow_version
        except (OSError, RecordError, TensorDamaged):
            continue
    return None

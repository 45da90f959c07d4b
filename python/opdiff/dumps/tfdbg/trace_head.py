"""The op, slot and time of a v2 graph execution trace from the first bytes of its DebugEvent, so
indexing a stream never reads the tensors: protobuf writes fields in number order, and a
GraphExecutionTrace's context id, op name, slot and mode (fields 1-4) come before its tensor (5).

Only the wire format is read here (varints, fixed64, length-delimited fields); anything this
parser does not expect gives None, and the caller parses the whole record instead."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Optional, Tuple

from opdiff.dumps.tfdbg.wire import varint

_WALL_TIME, _TRACE = 1, 10  # DebugEvent fields
_OP_NAME, _SLOT, _MODE, _TENSOR = 2, 3, 4, 5  # GraphExecutionTrace fields


@dataclass(frozen=True)
class TraceHead:
    wall_time: float
    op_name: str
    output_slot: int
    debug_mode: int


def _varint(data: bytes, at: int) -> Tuple[int, int]:
    return varint(data, at, len(data))


def trace_head(prefix: bytes) -> Optional[TraceHead]:
    """The trace's head, or None (another event, or fields this reader does not expect).

    >>> from opdiff.dumps.tfdbg import tfdbg_pb2 as pb
    >>> event = pb.DebugEvent(wall_time=2.5)
    >>> trace = event.graph_execution_trace
    >>> trace.op_name, trace.output_slot, trace.tensor_debug_mode = "dense/MatMul", 1, pb.FULL_TENSOR
    >>> trace.tensor_proto.tensor_content = bytes(1000)
    >>> trace_head(event.SerializeToString()[:40])
    TraceHead(wall_time=2.5, op_name='dense/MatMul', output_slot=1, debug_mode=7)
    """
    try:
        wall_time, at = 0.0, 0
        while True:
            key, at = _varint(prefix, at)
            if key == (_WALL_TIME << 3 | 1):
                (wall_time,), at = struct.unpack_from("<d", prefix, at), at + 8
            elif key == (2 << 3):  # step
                _, at = _varint(prefix, at)
            elif key == (_TRACE << 3 | 2):
                _, at = _varint(prefix, at)
                return _trace_fields(prefix, at, wall_time)
            else:
                return None
    except (IndexError, struct.error, UnicodeDecodeError):
        return None


def _trace_fields(prefix: bytes, at: int, wall_time: float) -> Optional[TraceHead]:
    op_name, slot, mode = "", 0, 0
    while at < len(prefix):
        key, at = _varint(prefix, at)
        field, wire = key >> 3, key & 7
        if wire == 2 and field == _TENSOR:
            return TraceHead(wall_time, op_name, slot, mode)
        if wire == 2:
            length, at = _varint(prefix, at)
            if at + length > len(prefix):
                return None
            if field == _OP_NAME:
                op_name = prefix[at : at + length].decode("utf-8")
            at += length
        elif wire == 0:
            value, at = _varint(prefix, at)
            slot, mode = (value, mode) if field == _SLOT else (slot, value) if field == _MODE else (slot, mode)
        else:
            return None
    return None  # the prefix ended before the tensor: the caller reads the whole record

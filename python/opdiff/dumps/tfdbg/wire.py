"""The protobuf wire format, as far as finding a TensorProto's ``tensor_content`` inside a tfdbg
record without copying it: protobuf's Python API hands a bytes field out as a fresh copy on every
access, which for big tensors costs more than reading the file. Here the bytes stay where they
are, and numpy views them in the buffer the file was read into.

Anything unexpected (a wire type, a length past the region, typed value fields) gives None, and
the caller falls back to protobuf, which then says what is wrong."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterator, List, Optional, Tuple

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5


def varint(data: bytes, at: int, end: int) -> Tuple[int, int]:
    """The varint at `at` and the offset after it; IndexError when it runs past `end`."""
    value = shift = 0
    while True:
        if at >= end or shift > 63:
            raise IndexError("a varint runs past its field")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if not byte & 0x80:
            return value, at
        shift += 7


def fields(data: bytes, start: int, end: int) -> Iterator[Tuple[int, int, int, int]]:
    """(field number, wire type, value or payload start, payload end) of each field in a region."""
    at = start
    while at < end:
        key, at = varint(data, at, end)
        field, wire = key >> 3, key & 7
        if wire == VARINT:
            value, at = varint(data, at, end)
            yield field, wire, value, at
        elif wire == LENGTH:
            length, at = varint(data, at, end)
            if at + length > end:
                raise IndexError("a field runs past its message")
            yield field, wire, at, at + length
            at += length
        elif wire in (FIXED64, FIXED32):
            size = 8 if wire == FIXED64 else 4
            if at + size > end:
                raise IndexError("a fixed field runs past its message")
            yield field, wire, at, at + size
            at += size
        else:
            raise IndexError(f"wire type {wire}")


def singular(data: bytes, start: int, end: int, allowed: FrozenSet[int],
             repeated: FrozenSet[int] = frozenset()) -> Optional[Dict[int, Tuple[int, int, int]]]:
    """A message's fields as {number: (wire type, value or start, end)}, the first of a `repeated`
    one kept; None when a field is not `allowed` or a singular one comes twice (protobuf would
    merge such fields, or let a oneof's later member win: its reading is the one to trust)."""
    found: Dict[int, Tuple[int, int, int]] = {}
    for field, wire, first, last in fields(data, start, end):
        if field not in allowed or (field in found and field not in repeated):
            return None
        found.setdefault(field, (wire, first, last))
    return found


def submessage(data: bytes, start: int, end: int, number: int, allowed: FrozenSet[int],
               repeated: FrozenSet[int] = frozenset()) -> Optional[Tuple[int, int]]:
    """Field `number` of a message whose fields are all `allowed` and singular (but `repeated`)."""
    found = singular(data, start, end, allowed, repeated)
    if found is None or number not in found or found[number][0] != LENGTH:
        return None
    return found[number][1], found[number][2]


@dataclass(frozen=True)
class TensorSpan:
    """A TensorProto's dtype, shape and where its ``tensor_content`` lies in the buffer."""

    dtype: int
    shape: Tuple[int, ...]
    start: int
    end: int


_TENSOR_FIELDS = frozenset({1, 2, 3, 4})  # dtype, tensor_shape, version_number, tensor_content
_SHAPE_FIELDS, _DIM_FIELDS = frozenset({2}), frozenset({1, 2})  # dims; a dim's size and name


def tensor_span(data: bytes, start: int, end: int) -> Optional[TensorSpan]:
    """The tensor_content span of the TensorProto in ``data[start:end]``; None where there is none,
    or where typed value fields, an unknown rank or repeated fields make protobuf's reading the
    one to trust."""
    try:
        found = singular(data, start, end, _TENSOR_FIELDS)
        if found is None or found.get(4, (None,))[0] != LENGTH or found.get(1, (VARINT,))[0] != VARINT:
            return None
        shape: List[int] = []
        if 2 in found:
            wire, first, last = found[2]
            if wire != LENGTH:
                return None
            for field, dim_wire, dim_start, dim_end in fields(data, first, last):
                dim = singular(data, dim_start, dim_end, _DIM_FIELDS) if field == 2 and dim_wire == LENGTH else None
                if dim is None or dim.get(1, (VARINT,))[0] != VARINT:
                    return None
                shape.append(dim[1][1] if 1 in dim else 0)
    except IndexError:
        return None
    if any(size >= 1 << 63 for size in shape):
        return None
    return TensorSpan(found[1][1] if 1 in found else 0, tuple(shape), found[4][1], found[4][2])

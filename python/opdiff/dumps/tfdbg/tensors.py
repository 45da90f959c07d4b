"""TensorFlow's TensorProto as a numpy array: every dtype tfdbg writes, from ``tensor_content``
(the raw little-endian bytes) or from the typed repeated fields (``float_val``, ``half_val`` ...).

Strings, resource handles and variants hold no numbers: :class:`TensorSkipped` says so, as a
damaged tensor gives :class:`TensorDamaged`; both carry the reason a row shows.
"""

from __future__ import annotations

from typing import Callable, Dict, Tuple

import ml_dtypes
import numpy as np

from opdiff.dumps.tfdbg import tfdbg_pb2 as pb
from opdiff.dumps.tfdbg.wire import TensorSpan

# TensorFlow's *_REF types (a variable's ref output) are the base type plus 100.
REF_OFFSET = 100

NUMPY_DTYPES: Dict[int, np.dtype] = {
    pb.DT_FLOAT: np.dtype("<f4"), pb.DT_DOUBLE: np.dtype("<f8"), pb.DT_HALF: np.dtype("<f2"),
    pb.DT_BFLOAT16: np.dtype(ml_dtypes.bfloat16), pb.DT_COMPLEX64: np.dtype("<c8"), pb.DT_COMPLEX128: np.dtype("<c16"),
    pb.DT_INT8: np.dtype("i1"), pb.DT_UINT8: np.dtype("u1"), pb.DT_INT16: np.dtype("<i2"), pb.DT_UINT16: np.dtype("<u2"),
    pb.DT_INT32: np.dtype("<i4"), pb.DT_UINT32: np.dtype("<u4"), pb.DT_INT64: np.dtype("<i8"), pb.DT_UINT64: np.dtype("<u8"),
    pb.DT_BOOL: np.dtype("?"),
    # quantized types hold plain integers
    pb.DT_QINT8: np.dtype("i1"), pb.DT_QUINT8: np.dtype("u1"), pb.DT_QINT16: np.dtype("<i2"),
    pb.DT_QUINT16: np.dtype("<u2"), pb.DT_QINT32: np.dtype("<i4"),
    pb.DT_FLOAT8_E5M2: np.dtype(ml_dtypes.float8_e5m2), pb.DT_FLOAT8_E4M3FN: np.dtype(ml_dtypes.float8_e4m3fn),
}
# A short value list expands to the whole shape (TensorFlow's rule); past this many bytes the
# expansion is refused rather than allocated (tfdbg writes big tensors as tensor_content anyway).
MAX_EXPANDED_BYTES = 1 << 30
NOT_NUMBERS: Dict[int, str] = {pb.DT_STRING: "a string tensor", pb.DT_RESOURCE: "a resource handle", pb.DT_VARIANT: "a variant tensor"}


class TensorSkipped(ValueError):
    """A tensor that holds no numbers to compare (strings, resources, variants)."""


class TensorDamaged(ValueError):
    """A tensor whose proto does not describe its elements (sizes disagree, unknown dtype)."""


def dtype_name(number: int) -> str:
    """TensorFlow's name of a DataType number.

    >>> dtype_name(19), dtype_name(101)
    ('DT_HALF', 'DT_FLOAT_REF')
    """
    base = number - REF_OFFSET if number > REF_OFFSET else number
    try:
        name = pb.DataType.Name(base)
    except ValueError:
        return f"DataType {number}"
    return f"{name}_REF" if base != number else name


def numpy_dtype_of(number: int) -> Tuple[int, np.dtype]:
    """The base DataType (a _REF one's) and its numpy dtype; TensorSkipped for types without
    numbers, TensorDamaged for types opdiff does not know."""
    base = number - REF_OFFSET if number > REF_OFFSET else number
    if base in NOT_NUMBERS:
        raise TensorSkipped(f"{NOT_NUMBERS[base]} ({dtype_name(number)}): no numbers to compare")
    dtype = NUMPY_DTYPES.get(base)
    if dtype is None:
        raise TensorDamaged(f"{dtype_name(number)} is not a type opdiff reads")
    return base, dtype


def tensor_shape(proto: pb.TensorProto) -> Tuple[int, ...]:
    if proto.tensor_shape.unknown_rank:
        raise TensorDamaged("the tensor's shape has an unknown rank")
    shape = tuple(int(dim.size) for dim in proto.tensor_shape.dim)
    if any(size < 0 for size in shape):
        raise TensorDamaged(f"the tensor's shape {list(shape)} has a negative size")
    return shape


def to_numpy(proto: pb.TensorProto) -> np.ndarray:
    """The array a TensorProto holds (a view of ``tensor_content`` where it has one).

    >>> t = pb.TensorProto(dtype=pb.DT_FLOAT, float_val=[1.5])
    >>> t.tensor_shape.dim.add(size=3)  # doctest: +ELLIPSIS
    size: 3...
    >>> to_numpy(t).tolist()
    [1.5, 1.5, 1.5]
    """
    number, dtype = numpy_dtype_of(proto.dtype)
    shape = tensor_shape(proto)
    count = int(np.prod(shape, dtype=np.int64))
    content = proto.tensor_content  # each access copies the bytes: once only
    if content:
        if len(content) != count * dtype.itemsize:
            raise TensorDamaged(f"tensor_content holds {len(content)} bytes; shape {list(shape)} of "
                                f"{dtype_name(proto.dtype)} needs {count * dtype.itemsize}")
        return np.frombuffer(content, dtype=dtype).reshape(shape)
    return _broadcast(_typed_values(proto, number, dtype), count, proto).reshape(shape)


def span_to_numpy(data: bytes, span: TensorSpan) -> np.ndarray:
    """The array a located ``tensor_content`` holds: a view of `data`, never a copy. TensorSkipped
    or TensorDamaged as to_numpy gives them."""
    _, dtype = numpy_dtype_of(span.dtype)
    count = int(np.prod(span.shape, dtype=object))
    if span.end - span.start != count * dtype.itemsize:
        raise TensorDamaged(f"tensor_content holds {span.end - span.start} bytes; shape {list(span.shape)} of "
                            f"{dtype_name(span.dtype)} needs {count * dtype.itemsize}")
    return np.frombuffer(data, dtype=dtype, count=count, offset=span.start).reshape(span.shape)


def _typed_values(proto: pb.TensorProto, number: int, dtype: np.dtype) -> np.ndarray:
    reader = _TYPED_FIELDS.get(number)
    if reader is None:
        raise TensorDamaged(f"{dtype_name(proto.dtype)} has no typed value field")
    return reader(proto, dtype)


def _halves(proto: pb.TensorProto, dtype: np.dtype) -> np.ndarray:
    # half_val holds each 16-bit pattern (float16 or bfloat16) in the low bits of an int32
    return np.asarray(proto.half_val, dtype=np.int32).astype(np.uint16).view(dtype)


def _complex(values: object, dtype: np.dtype) -> np.ndarray:
    parts = np.asarray(values, dtype=np.float32 if dtype.itemsize == 8 else np.float64)
    if parts.size % 2:
        raise TensorDamaged("a complex tensor's values hold an odd number of parts")
    return parts.view(dtype)


def _float8(proto: pb.TensorProto, dtype: np.dtype) -> np.ndarray:
    return np.frombuffer(proto.float8_val, dtype=dtype)


_TYPED_FIELDS: Dict[int, Callable[[pb.TensorProto, np.dtype], np.ndarray]] = {
    pb.DT_FLOAT: lambda p, d: np.asarray(p.float_val, dtype=d),
    pb.DT_DOUBLE: lambda p, d: np.asarray(p.double_val, dtype=d),
    pb.DT_HALF: _halves, pb.DT_BFLOAT16: _halves,
    pb.DT_COMPLEX64: lambda p, d: _complex(p.scomplex_val, d),
    pb.DT_COMPLEX128: lambda p, d: _complex(p.dcomplex_val, d),
    pb.DT_INT64: lambda p, d: np.asarray(p.int64_val, dtype=d),
    pb.DT_UINT32: lambda p, d: np.asarray(p.uint32_val, dtype=d),
    pb.DT_UINT64: lambda p, d: np.asarray(p.uint64_val, dtype=d),
    pb.DT_BOOL: lambda p, d: np.asarray(p.bool_val, dtype=d),
    pb.DT_FLOAT8_E5M2: _float8, pb.DT_FLOAT8_E4M3FN: _float8,
    **{number: (lambda p, d: np.asarray(p.int_val, dtype=np.int64).astype(d))
       for number in (pb.DT_INT32, pb.DT_INT16, pb.DT_INT8, pb.DT_UINT8, pb.DT_UINT16,
                      pb.DT_QINT8, pb.DT_QUINT8, pb.DT_QINT16, pb.DT_QUINT16, pb.DT_QINT32)},
}


def _broadcast(values: np.ndarray, count: int, proto: pb.TensorProto) -> np.ndarray:
    """TensorFlow's rule for short value lists: the last value fills the rest; none means zeros."""
    if values.size == count:
        return values
    if count * values.dtype.itemsize > MAX_EXPANDED_BYTES:
        raise TensorDamaged(f"{values.size} values to expand to {count} elements: over the "
                            f"{MAX_EXPANDED_BYTES >> 20} MiB opdiff expands a short value list to")
    if values.size > count:
        raise TensorDamaged(f"{values.size} values for a shape of {count} elements ({dtype_name(proto.dtype)})")
    if values.size == 0:
        return np.zeros(count, dtype=values.dtype)
    return np.concatenate([values, np.full(count - values.size, values[-1], dtype=values.dtype)])

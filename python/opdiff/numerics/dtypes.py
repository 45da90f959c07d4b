"""Mapping numpy / ml_dtypes arrays to the core's element types, without copying."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple, Union

import ml_dtypes
import numpy as np

CORE_DTYPES: Tuple[str, ...] = (
    "float64",
    "float32",
    "float16",
    "bfloat16",
    "float8_e4m3fn",
    "float8_e5m2",
    "hifloat8",
    "int4",
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "bool",
    "complex64",
    "complex128",
)
"""Every element type the core decodes ("int4" = packed two per byte, low nibble first)."""

_NUMPY_TO_CORE = {
    np.dtype(np.float64): "float64",
    np.dtype(np.float32): "float32",
    np.dtype(np.float16): "float16",
    np.dtype(ml_dtypes.bfloat16): "bfloat16",
    np.dtype(ml_dtypes.float8_e4m3fn): "float8_e4m3fn",
    np.dtype(ml_dtypes.float8_e5m2): "float8_e5m2",
    np.dtype(np.int8): "int8",
    np.dtype(np.uint8): "uint8",
    np.dtype(np.int16): "int16",
    np.dtype(np.uint16): "uint16",
    np.dtype(np.int32): "int32",
    np.dtype(np.uint32): "uint32",
    np.dtype(np.int64): "int64",
    np.dtype(np.uint64): "uint64",
    np.dtype(np.bool_): "bool",
    np.dtype(np.complex64): "complex64",
    np.dtype(np.complex128): "complex128",
}


# ml_dtypes' int4/uint4 keep one value per byte in the low nibble; widened (copied) to int8/uint8.
_WIDENED = {np.dtype(ml_dtypes.int4): np.dtype(np.int8), np.dtype(ml_dtypes.uint4): np.dtype(np.uint8)}


@dataclass(frozen=True)
class RawTensor:
    """Raw little-endian bytes holding ``count`` elements of a core dtype, in logical order.

    For element types numpy cannot hold natively, such as packed ``int4`` (two per byte, low
    nibble first) and ``hifloat8``.

    >>> import numpy as np, opdiff
    >>> packed = opdiff.RawTensor(np.array([0x21, 0xF3], dtype=np.uint8), "int4", 4)  # 1, 2, 3, -1
    >>> opdiff.metrics(packed, np.array([1, 2, 3, -1], dtype=np.int8)).max_absolute_error
    0.0
    """

    data: Union[bytes, bytearray, memoryview, np.ndarray]
    dtype: str
    count: int

    def __post_init__(self) -> None:
        if self.dtype not in CORE_DTYPES:
            raise ValueError(f"unsupported dtype {self.dtype!r}; supported: {', '.join(CORE_DTYPES)}")
        if self.count < 0:
            raise ValueError("count must not be negative")


@dataclass(frozen=True)
class CoreOperand:
    """What the core needs of one side: a contiguous buffer, its dtype name and element count."""

    buffer: Union[bytes, bytearray, memoryview, np.ndarray]
    dtype: str
    count: int
    shape: Tuple[int, ...]

    @property
    def components(self) -> int:
        """Values compared: complex elements count twice (real and imaginary part)."""
        return self.count * (2 if self.dtype.startswith("complex") else 1)


def core_dtype_name(dtype: np.dtype) -> str:
    """The core's name for a numpy dtype, or ValueError naming the unsupported dtype."""
    dtype = np.dtype(dtype)
    name = _NUMPY_TO_CORE.get(dtype.newbyteorder("=") if dtype.byteorder == ">" else dtype)
    if name is None:
        supported = ", ".join(sorted({str(d) for d in _NUMPY_TO_CORE}))
        raise ValueError(f"unsupported dtype {dtype}; supported: {supported}")
    return name


def as_core_operand(value: Union[np.ndarray, RawTensor], what: str) -> CoreOperand:
    """Turn an array or RawTensor into a CoreOperand, copying only when it must."""
    if isinstance(value, RawTensor):
        return CoreOperand(value.data, value.dtype, value.count, (value.count,))
    array = np.asarray(value)
    if array.dtype in _WIDENED:
        array = array.astype(_WIDENED[array.dtype])
    try:
        name = core_dtype_name(array.dtype)
    except ValueError as error:
        raise ValueError(f"{what}: {error}") from None
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    array = np.ascontiguousarray(array)  # no copy when already C-contiguous
    # A uint8 view hands the core plain bytes, whatever numpy thinks of the element type.
    buffer = array.reshape(-1).view(np.uint8) if array.size else np.empty(0, np.uint8)
    return CoreOperand(buffer, name, int(array.size), tuple(array.shape))

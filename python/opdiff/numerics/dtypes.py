"""Mapping numpy / ml_dtypes arrays to the core's element types, without copying."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple, Union

import ml_dtypes
import numpy as np

import opdiff._core as _core

CORE_DTYPES: Tuple[str, ...] = tuple(_core.dtype_names())
"""Every element type the core decodes, from its dtype table ("int4" = packed two per byte, low nibble first)."""

#: The core dtypes numpy has no type for, and the numpy dtype a decoded one is held in.
HELD_WIDER: Dict[str, np.dtype] = {"hifloat8": np.dtype(np.float32), "int4": np.dtype(np.int8)}


def _numpy_dtype(name: str) -> np.dtype:
    if name in HELD_WIDER:
        return HELD_WIDER[name]
    return np.dtype(getattr(ml_dtypes, name)) if hasattr(ml_dtypes, name) else np.dtype(name)


#: Core dtype name -> numpy dtype of a logical array (bf16/fp8 as ml_dtypes types; see HELD_WIDER).
NUMPY_DTYPES: Dict[str, np.dtype] = {name: _numpy_dtype(name) for name in CORE_DTYPES}
_NUMPY_TO_CORE = {dtype: name for name, dtype in NUMPY_DTYPES.items() if name not in HELD_WIDER}


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

"""Mapping numpy / ml_dtypes arrays to the core's element types, without copying.

ml_dtypes is imported only where one of its types is asked for (bfloat16, float8): its import
alone can take longer than a whole comparison (ml_dtypes 0.7.0: 0.6 s here), and arrays of numpy's own
types never need it."""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from typing import Dict, Iterator, Mapping, Optional, Tuple, Union

import numpy as np

from opdiff.numerics.core import CORE_DTYPES as CORE_DTYPES  # "int4" = packed two per byte, low nibble first

#: The core dtypes numpy has no type for, and the numpy dtype a decoded one is held in.
HELD_WIDER: Dict[str, np.dtype] = {"hifloat8": np.dtype(np.float32), "int4": np.dtype(np.int8)}


def _named_dtype(name: str) -> Optional[np.dtype]:
    """The numpy dtype numpy itself knows by `name`: its own types, and ml_dtypes' once that is
    imported (it registers their names); None otherwise."""
    try:
        return np.dtype(name)
    except TypeError:
        return None


@functools.cache
def numpy_dtype(name: str) -> np.dtype:
    """numpy dtype of a logical array of core dtype `name` (bf16/fp8 as ml_dtypes types; see
    HELD_WIDER); KeyError for a name that is not a core dtype."""
    if name not in CORE_DTYPES:
        raise KeyError(name)
    if name in HELD_WIDER:
        return HELD_WIDER[name]
    named = _named_dtype(name)
    if named is not None:
        return named
    import ml_dtypes

    found: np.dtype = np.dtype(getattr(ml_dtypes, name))
    return found


class _NumpyDtypes(Mapping[str, np.dtype]):
    """Core dtype name -> numpy dtype (numpy_dtype), in the core's order; ml_dtypes' types are
    looked up when read."""

    def __getitem__(self, name: str) -> np.dtype:
        return numpy_dtype(name)

    def __iter__(self) -> Iterator[str]:
        return iter(CORE_DTYPES)

    def __len__(self) -> int:
        return len(CORE_DTYPES)


#: Core dtype name -> numpy dtype of a logical array (bf16/fp8 as ml_dtypes types; see HELD_WIDER).
NUMPY_DTYPES: Mapping[str, np.dtype] = _NumpyDtypes()
# What numpy knows without ml_dtypes at import (bfloat16 and float8 join it only if ml_dtypes was imported first).
_OWN_TO_CORE = {dtype: name for name in CORE_DTYPES if name not in HELD_WIDER and (dtype := _named_dtype(name)) is not None}


@functools.cache
def _all_to_core() -> Dict[np.dtype, str]:
    return {numpy_dtype(name): name for name in CORE_DTYPES if name not in HELD_WIDER}


def core_name_of(dtype: np.dtype) -> Optional[str]:
    """The core dtype whose numpy dtype equals `dtype` (byte order included), None when none does;
    ml_dtypes is imported only for a dtype that is not numpy's own."""
    found = _OWN_TO_CORE.get(dtype)
    return found if found is not None else _all_to_core().get(dtype)


def _widened(dtype: np.dtype) -> Optional[np.dtype]:
    """The numpy dtype an array of ml_dtypes' int4/uint4 (one value per byte, in the low nibble) is
    widened (copied) to; None for any other dtype."""
    if "ml_dtypes" not in sys.modules:  # an array of its types exists only once ml_dtypes is imported
        return None
    return _int4_widening().get(dtype)


@functools.cache
def _int4_widening() -> Dict[np.dtype, np.dtype]:
    import ml_dtypes

    return {np.dtype(ml_dtypes.int4): np.dtype(np.int8), np.dtype(ml_dtypes.uint4): np.dtype(np.uint8)}


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
    name = core_name_of(dtype.newbyteorder("=") if dtype.byteorder == ">" else dtype)
    if name is None:
        supported = ", ".join(sorted({str(d) for d in _all_to_core()}))
        raise ValueError(f"unsupported dtype {dtype}; supported: {supported}")
    return name


def as_core_operand(value: Union[np.ndarray, RawTensor], what: str) -> CoreOperand:
    """Turn an array or RawTensor into a CoreOperand, copying only when it must."""
    if isinstance(value, RawTensor):
        return CoreOperand(value.data, value.dtype, value.count, (value.count,))
    array = np.asarray(value)
    widened = _widened(array.dtype)
    if widened is not None:
        array = array.astype(widened)
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

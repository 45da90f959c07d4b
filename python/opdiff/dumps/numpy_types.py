"""numpy dtypes of the dump element types: what a decoded tensor is held in, and which element
type an array is written as. Apart from dumps/formats.py (numbers and names only) so that reading
dumps through the core never loads numpy."""

from __future__ import annotations

from typing import Dict, Union

import ml_dtypes
import numpy as np

from opdiff.dumps.formats import DATA_TYPE_NUMBERS, DATA_TYPE_OF

#: Core dtype name -> numpy dtype of a logical array (hifloat8 decodes to float32, int4 to int8).
NUMPY_DTYPES: Dict[str, np.dtype] = {
    "float64": np.dtype(np.float64),
    "float32": np.dtype(np.float32),
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "float8_e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn),
    "float8_e5m2": np.dtype(ml_dtypes.float8_e5m2),
    "hifloat8": np.dtype(np.float32),
    "int4": np.dtype(np.int8),
    "int8": np.dtype(np.int8),
    "uint8": np.dtype(np.uint8),
    "int16": np.dtype(np.int16),
    "uint16": np.dtype(np.uint16),
    "int32": np.dtype(np.int32),
    "uint32": np.dtype(np.uint32),
    "int64": np.dtype(np.int64),
    "uint64": np.dtype(np.uint64),
    "bool": np.dtype(np.bool_),
    "complex64": np.dtype(np.complex64),
    "complex128": np.dtype(np.complex128),
}


def numpy_dtype(core_dtype: str) -> np.dtype:
    """numpy dtype of a logical array of a core dtype (bf16/fp8 as ml_dtypes types)."""
    return NUMPY_DTYPES[core_dtype]


def core_dtype_of(dtype: Union[str, np.dtype, type]) -> str:
    """The core dtype name for a numpy dtype, a core name or a DT_* name.

    >>> core_dtype_of("DT_BF16"), core_dtype_of(np.float16), core_dtype_of("int4")
    ('bfloat16', 'float16', 'int4')
    """
    if isinstance(dtype, str):
        if dtype in DATA_TYPE_OF:
            return dtype
        if dtype.upper().startswith("DT_"):
            number = DATA_TYPE_NUMBERS.get(dtype.upper())
            if number is None:
                raise ValueError(f"unknown data type {dtype}")
            for name, value in DATA_TYPE_OF.items():
                if value == number:
                    return name
            raise ValueError(f"data type {dtype} cannot be written")
    numpy_dtype = np.dtype(dtype)
    for name, candidate in NUMPY_DTYPES.items():
        if candidate == numpy_dtype and name not in ("hifloat8", "int4"):
            return name
    if numpy_dtype == np.dtype(ml_dtypes.int4):
        return "int4"
    raise ValueError(f"unsupported dtype {numpy_dtype}")

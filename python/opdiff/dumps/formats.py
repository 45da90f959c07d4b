"""Ascend data-type and format numbers, their names, and the dtype facts the writer needs.

The numbers and names come from dump_data.proto (its OutputDataType and OutputFormat enums); the
C++ core holds the same tables for reading, and a test keeps the two in step.

>>> from opdiff.dumps.formats import format_number, format_name
>>> format_number("NC1HWC0"), format_name(29)
(3, 'FRACTAL_NZ')
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple, Union

import ml_dtypes
import numpy as np

from opdiff.dumps import dump_data_pb2 as pb

FORMAT_PREFIX = "FORMAT_"

#: Stored layouts opdiff can write and decode (everything else is read as ND / reshape only).
LAYOUTS = (
    "NCHW", "NHWC", "ND", "HWCN", "CHWN", "NCDHW", "NDHWC", "DHWCN",
    "NC1HWC0", "NC1HWC0_C04", "NDC1HWC0", "C1HWNCoC0", "FRACTAL_Z", "FRACTAL_Z_3D", "FRACTAL_NZ",
)  # fmt: skip

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

#: Core dtype name -> the DT_* number the writer stores.
DATA_TYPE_OF: Dict[str, int] = {
    "float64": pb.DT_DOUBLE,
    "float32": pb.DT_FLOAT,
    "float16": pb.DT_FLOAT16,
    "bfloat16": pb.DT_BF16,
    "float8_e4m3fn": pb.DT_FLOAT8_E4M3FN,
    "float8_e5m2": pb.DT_FLOAT8_E5M2,
    "hifloat8": pb.DT_HIFLOAT8,
    "int4": pb.DT_INT4,
    "int8": pb.DT_INT8,
    "uint8": pb.DT_UINT8,
    "int16": pb.DT_INT16,
    "uint16": pb.DT_UINT16,
    "int32": pb.DT_INT32,
    "uint32": pb.DT_UINT32,
    "int64": pb.DT_INT64,
    "uint64": pb.DT_UINT64,
    "bool": pb.DT_BOOL,
    "complex64": pb.DT_COMPLEX64,
    "complex128": pb.DT_COMPLEX128,
}

#: DT_* number -> nano dump numbering (msaccucmp-behaviour.md §1.6).
NANO_DATA_TYPE_OF: Dict[int, int] = {
    pb.DT_FLOAT: 0, pb.DT_FLOAT16: 1, pb.DT_INT8: 2, pb.DT_INT32: 3, pb.DT_UINT8: 4, pb.DT_INT16: 6,
    pb.DT_UINT16: 7, pb.DT_UINT32: 8, pb.DT_INT64: 9, pb.DT_UINT64: 10, pb.DT_DOUBLE: 11, pb.DT_BOOL: 12,
    pb.DT_COMPLEX64: 16, pb.DT_COMPLEX128: 17, pb.DT_BF16: 27, pb.DT_INT4: 29,
}  # fmt: skip


def format_name(number: int) -> str:
    """``"NC1HWC0"`` for 3; ``"FORMAT_<n>"`` for numbers outside the enum."""
    try:
        return pb.OutputFormat.Name(number)[len(FORMAT_PREFIX) :]
    except ValueError:
        return f"FORMAT_{number}"


# Upper-case name without the prefix -> number (the enum's own lookups allocate on every call).
_FORMAT_NUMBERS: Dict[str, int] = {name[len(FORMAT_PREFIX) :].upper(): number for name, number in pb.OutputFormat.items()}


def format_number(format: Union[str, int]) -> int:
    """The FORMAT_* number of a name (with or without the prefix, any case) or a number."""
    if isinstance(format, int):
        return format
    number = _FORMAT_NUMBERS.get(format.upper().removeprefix(FORMAT_PREFIX))
    if number is None:
        raise ValueError(f"unknown format {format!r}")
    return number


def data_type_name(number: int) -> str:
    """``"DT_FLOAT16"`` for 2; ``"DT_<n>"`` for numbers outside the enum."""
    try:
        return pb.OutputDataType.Name(number)
    except ValueError:
        return f"DT_{number}"


def core_dtype_of(dtype: Union[str, np.dtype, type]) -> str:
    """The core dtype name for a numpy dtype, a core name or a DT_* name.

    >>> core_dtype_of("DT_BF16"), core_dtype_of(np.float16), core_dtype_of("int4")
    ('bfloat16', 'float16', 'int4')
    """
    if isinstance(dtype, str):
        if dtype in DATA_TYPE_OF:
            return dtype
        if dtype.upper().startswith("DT_"):
            number = pb.OutputDataType.Value(dtype.upper())
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


def default_c0(dtype: str) -> int:
    """C0 (elements per 32-byte fractal row) the Ascend convention uses for `dtype`:
    16 for 16- and 32-bit types, 32 for 8-bit types, 64 for int4."""
    if dtype == "int4":
        return 64
    bits = NUMPY_DTYPES[dtype].itemsize * 8 if dtype != "hifloat8" else 8
    return 32 if bits == 8 else 16


def parse_shape(text: Optional[str]) -> Optional[Tuple[int, ...]]:
    """``"1,3,224,224"`` -> (1, 3, 224, 224); None stays None."""
    if text is None:
        return None
    parts = [p for p in text.replace("x", ",").replace("_", ",").split(",") if p.strip()]
    return tuple(int(p) for p in parts)

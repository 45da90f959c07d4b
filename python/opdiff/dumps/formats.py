"""Ascend data-type and format numbers, their names, and the dtype facts the writer needs.

The numbers and names are dump_data.proto's (its OutputDataType and OutputFormat enums), read from
the C++ core's tables, which a test keeps equal to the proto's; so naming a dtype or a format needs
no protobuf.

>>> from opdiff.dumps.formats import format_number, format_name
>>> format_number("NC1HWC0"), format_name(29)
(3, 'FRACTAL_NZ')
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple, Union

from opdiff.dumps import core_files
from opdiff.numerics.core import CORE_DTYPES

FORMAT_PREFIX = "FORMAT_"

#: Stored layouts opdiff can write and decode (everything else is read as ND / reshape only).
LAYOUTS = (
    "NCHW", "NHWC", "ND", "HWCN", "CHWN", "NCDHW", "NDHWC", "DHWCN",
    "NC1HWC0", "NC1HWC0_C04", "NDC1HWC0", "C1HWNCoC0", "FRACTAL_Z", "FRACTAL_Z_3D", "FRACTAL_NZ",
)  # fmt: skip

_DATA_TYPE_NAMES: Dict[int, str] = core_files.ascend_dtype_table()  # 2 -> "DT_FLOAT16"
_FORMAT_NAMES: Dict[int, str] = core_files.ascend_format_table()  # 3 -> "NC1HWC0"
#: DT_* name -> number.
DATA_TYPE_NUMBERS: Dict[str, int] = {name: number for number, name in _DATA_TYPE_NAMES.items()}
# Upper-case format name without the prefix -> number.
_FORMAT_NUMBERS: Dict[str, int] = {name.upper(): number for number, name in _FORMAT_NAMES.items()}

#: Core dtype name -> the DT_* number the writer stores (both from the core's tables).
DATA_TYPE_OF: Dict[str, int] = {name: core_files.ascend_from_dtype(name) for name in CORE_DTYPES}

#: DT_* number -> nano dump numbering (docs/reference/reference-tool.md §1.6).
NANO_DATA_TYPE_OF: Dict[int, int] = {
    DATA_TYPE_NUMBERS[dt]: nano
    for dt, nano in (
        ("DT_FLOAT", 0), ("DT_FLOAT16", 1), ("DT_INT8", 2), ("DT_INT32", 3), ("DT_UINT8", 4), ("DT_INT16", 6),
        ("DT_UINT16", 7), ("DT_UINT32", 8), ("DT_INT64", 9), ("DT_UINT64", 10), ("DT_DOUBLE", 11), ("DT_BOOL", 12),
        ("DT_COMPLEX64", 16), ("DT_COMPLEX128", 17), ("DT_BF16", 27), ("DT_INT4", 29),
    )
}  # fmt: skip


def format_name(number: int) -> str:
    """``"NC1HWC0"`` for 3; ``"FORMAT_<n>"`` for numbers outside the enum."""
    name = _FORMAT_NAMES.get(number)
    return f"FORMAT_{number}" if name is None else name


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
    name = _DATA_TYPE_NAMES.get(number)
    return f"DT_{number}" if name is None else name


def default_c0(dtype: str) -> int:
    """C0 (elements per 32-byte fractal row) the Ascend convention uses for `dtype`:
    16 for 16- and 32-bit types (and wider), 32 for 8-bit types, 64 for int4 (element widths from
    the core's dtype table)."""
    if dtype not in DATA_TYPE_OF:
        raise KeyError(dtype)
    return {4: 64, 8: 32}.get(core_files.dtype_bits(dtype), 16)


def parse_shape(text: Optional[str]) -> Optional[Tuple[int, ...]]:
    """``"1,3,224,224"`` -> (1, 3, 224, 224); None stays None."""
    if text is None:
        return None
    parts = [p for p in text.replace("x", ",").replace("_", ",").split(",") if p.strip()]
    return tuple(int(p) for p in parts)

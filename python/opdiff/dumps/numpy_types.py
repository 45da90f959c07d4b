"""numpy dtypes of the dump element types: what a decoded tensor is held in, and which element
type an array is written as. Apart from dumps/formats.py (numbers and names only) so that reading
dumps through the core never loads numpy."""

from __future__ import annotations

from typing import Union

import numpy as np

from opdiff.dumps.formats import DATA_TYPE_NUMBERS, DATA_TYPE_OF
from opdiff.numerics.dtypes import core_name_of
from opdiff.numerics.dtypes import numpy_dtype as numpy_dtype  # numpy dtype of a logical array of a core dtype


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
    found = core_name_of(numpy_dtype)
    if found is not None:
        return found
    import ml_dtypes

    if numpy_dtype == np.dtype(ml_dtypes.int4):
        return "int4"
    raise ValueError(f"unsupported dtype {numpy_dtype}")

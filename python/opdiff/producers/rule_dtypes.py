"""The element type a fusion rule's output desc records (``DT_FLOAT16`` ...), shared by the producers
that write a rule beside their device dumps (dump-onnx, dump-tf)."""

from __future__ import annotations

from typing import Optional

import numpy as np

from opdiff.dumps.formats import DATA_TYPE_OF, data_type_name
from opdiff.dumps.numpy_types import core_dtype_of


def dtype_name(array: Optional[np.ndarray]) -> str:
    """``DT_FLOAT16`` etc. for an array ("" when unknown or not an Ascend type).

    >>> dtype_name(np.zeros(2, np.float16))
    'DT_FLOAT16'
    """
    if array is None:
        return ""
    try:
        return data_type_name(DATA_TYPE_OF[core_dtype_of(array.dtype)])
    except (ValueError, KeyError):
        return ""

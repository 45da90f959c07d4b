"""Writing statistics dumps in the device's exact form (docs/reference/device-files.md §2.1), for
tests and generated networks: one CSV per op execution, named ``{dump file name}.csv``.

The statistics are taken over the STORED elements, as the device takes them: a tensor written in
NC1HWC0 with C not a multiple of C0, or in FRACTAL_NZ, counts its padding zeros. They come from the
core (one pass over the stored array): min/max skip NaN, the mean is accumulated in double (the
device keeps a running mean in double; the two agree far below the 6 printed digits). Numbers are
printed as a C++ ostream prints a double by default (``%g``, 6 significant digits); int8/uint8
extremes as integers. The data types below have no statistics on the device: their six stats
cells are empty.

>>> import numpy as np, tempfile, os
>>> from opdiff.dumps import Tensor
>>> path = write_statistics(os.path.join(tempfile.mkdtemp(), "Relu.relu1.3.1.1700000000000001.csv"),
...     outputs=[Tensor(np.full((1, 3, 1, 1), 2.0, np.float32), layout="NC1HWC0", dtype="float16")])
>>> print(path.read_text().splitlines()[1])
Output,0,32,DT_FLOAT16,NC1HWC0,1x1x1x1x16,2,0,0.375,16,0,0,0
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Sequence, Union

import numpy as np

from opdiff.dumps.formats import DATA_TYPE_OF, data_type_name
from opdiff.dumps.statistics import HEADER
from opdiff.dumps.writer import Tensor
from opdiff.fileio.atomic import write_text
from opdiff.numerics.core_adapter import compute_metrics
from opdiff.numerics.dtypes import NUMPY_DTYPES

PathLike = Union[str, "os.PathLike[str]"]

#: Stored types the writer gives no statistics (empty cells), standing for what the device does not support.
UNSUPPORTED = ("bool", "complex64", "complex128", "int4", "hifloat8", "float8_e4m3fn", "float8_e5m2")
INTEGER_EXTREMES = ("int8", "uint8")  # printed as integers


def ostream_number(value: float) -> str:
    """A double as ``std::ostream << value`` prints it by default: 6 significant digits.

    >>> ostream_number(3.994140625), ostream_number(0.0012344312), ostream_number(1234567.0), ostream_number(float("-inf"))
    ('3.99414', '0.00123443', '1.23457e+06', '-inf')
    """
    return f"{value:g}"


def _shape_cell(shape: Sequence[int]) -> str:
    return "x".join(str(d) for d in shape) if len(shape) else "-"


def statistics_line(role: str, index: int, tensor: Tensor) -> str:
    """The line of one tensor (without the line end)."""
    data, shape = tensor.stored()
    dtype = tensor.core_dtype()
    head = f"{role},{index},{len(data)},{data_type_name(DATA_TYPE_OF[dtype])},{tensor.layout},{_shape_cell(shape)}"
    if dtype in UNSUPPORTED:
        return head + ",,,,,,"
    stored = np.frombuffer(data, dtype=NUMPY_DTYPES[dtype]).reshape(shape)
    if stored.size == 0:
        return head + ",0,0,0,0,0,0,0"
    side = compute_metrics(stored, stored, algorithms=("MaxAbsoluteError",), threads=1).x
    if dtype in INTEGER_EXTREMES:
        extremes = f"{int(side.max)},{int(side.min)}"
    else:
        extremes = f"{ostream_number(side.max)},{ostream_number(side.min)}"
    return f"{head},{extremes},{ostream_number(side.mean)},{stored.size},{side.nan},{side.neg_inf},{side.pos_inf}"


def _as_tensor(item: Union[Tensor, np.ndarray]) -> Tensor:
    return item if isinstance(item, Tensor) else Tensor(np.asarray(item))


def write_statistics(path: PathLike, inputs: Sequence[Union[Tensor, np.ndarray]] = (),
                     outputs: Sequence[Union[Tensor, np.ndarray]] = ()) -> Path:
    """Write the statistics CSV of one op execution (through a temporary name); returns its path."""
    lines: List[str] = [HEADER]
    lines += [statistics_line("Input", k, _as_tensor(t)) for k, t in enumerate(inputs)]
    lines += [statistics_line("Output", k, _as_tensor(t)) for k, t in enumerate(outputs)]
    return write_text(path, "\n".join(lines) + "\n")


__all__ = ["UNSUPPORTED", "ostream_number", "statistics_line", "write_statistics"]

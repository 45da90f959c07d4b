"""The result of a single-op detail (docs/reference/reference-tool.md §6.2): the worst elements of one tensor
pair with their coordinates, the error histograms and both logical arrays. engine/single_op.py
computes it; the console and the reference's files show it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Tuple

import numpy as np

from opdiff.numerics.values import Metrics
from opdiff.results.rows import TensorId

BLOCK = 1 << 20  # elements per block: two float64 temporaries of 8 MB


@dataclass(frozen=True)
class ElementError:
    """One element: flat index in the logical tensor, its coordinates, both values, both errors."""

    flat: int
    coords: Tuple[int, ...]
    my: float
    golden: float
    absolute: float
    relative: float


@dataclass(frozen=True)
class Histogram:
    """Counts of an error per bin: ``labels[i]`` names bin i ("0", "<1e-10", "[1e-3,1e-2)", ">=1e10", "nan/inf")."""

    labels: Tuple[str, ...]
    counts: Tuple[int, ...]


@dataclass(frozen=True)
class SingleOpDetail:
    """Everything the detail reports for one tensor pair."""

    npu_dump: str
    ground_truth: str
    tensor: TensorId
    shape: Tuple[int, ...]  # the logical shape compared (my side laid out as the golden)
    axes: str  # "N C H W", "N C D H W" or "D0 D1 ..." for other ranks
    count: int
    metrics: Metrics
    top_absolute: Tuple[ElementError, ...]
    top_relative: Tuple[ElementError, ...]
    absolute_histogram: Histogram
    relative_histogram: Histogram
    min_absolute: float
    max_absolute: float
    min_relative: float
    max_relative: float
    nonfinite_relative: int  # elements whose relative error is NaN/Inf (golden 0 or NaN data)
    my_array: np.ndarray  # my side, logical, in the compared shape (for {prefix}.npy)
    golden_array: np.ndarray

    @property
    def prefix(self) -> str:
        """``{op with '/' -> '_'}_{input|output}_{i}``, the reference's file prefix."""
        return f"{self.tensor.op_label.replace('/', '_')}_{self.tensor.role}_{self.tensor.index}"

    @property
    def tensor_index(self) -> str:
        """The tensor as the reference's TensorIndex names it."""
        return str(self.tensor)

    def coords(self, flat: int) -> Tuple[int, ...]:
        return coords_of(flat, self.shape)


def axes_of(shape: Sequence[int]) -> str:
    """Coordinate header: shapes up to 4-D are padded to N C H W, 5-D is N C D H W."""
    if len(shape) <= 4:
        return "N C H W"
    if len(shape) == 5:
        return "N C D H W"
    return " ".join(f"D{k}" for k in range(len(shape)))


def coords_of(flat: int, shape: Sequence[int]) -> Tuple[int, ...]:
    """Logical coordinates of a flat index, padded with trailing zeros to 4-D as the reference does.

    >>> coords_of(13, (2, 3, 4)), coords_of(5, ())
    ((1, 0, 1, 0), (0, 0, 0, 0))
    """
    coords = tuple(int(c) for c in np.unravel_index(flat, tuple(shape))) if len(shape) else ()
    return coords + (0,) * (4 - len(coords)) if len(coords) < 4 else coords

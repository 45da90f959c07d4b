"""The statistics of one tensor as a statistics-mode dump records them (max, min, mean, counts of
NaN and Inf): what the statistics reader produces, the core computes for a full-data side, and the
statistics rows compare."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple


@dataclass(frozen=True)
class TensorStatistics:
    """The statistics of one tensor: over its stored elements (padding included) when the device
    wrote them; ``role`` is "input" or "output". ``min``/``max`` skip NaN; ``mean`` does not."""

    role: str
    index: int
    data_type: str  # the DT_* name, e.g. "DT_FLOAT16"
    format: str  # without FORMAT_, e.g. "NC1HWC0"
    shape: Tuple[int, ...]  # the stored dims
    count: int
    max: float
    min: float
    mean: float
    nan: int
    neg_inf: int
    pos_inf: int
    data_size: int = 0

    @property
    def special(self) -> int:
        """NaN and infinite elements together."""
        return self.nan + self.neg_inf + self.pos_inf

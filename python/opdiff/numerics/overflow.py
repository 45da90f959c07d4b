"""The overflow rule, in one place: when the values of a tensor left the range of its data type.

A float tensor overflows when it holds NaN or Inf, and a float16 tensor also when its largest
magnitude reaches 65504 (float16's largest finite value: the device saturates there). The overflow
analysis (`opdiff overflow`) and the advisor apply :func:`overflows`; the reference-compatible CSV's
OverFlow column keeps the reference's narrower test, :func:`reference_overflow_flag`.

>>> from opdiff.numerics.overflow import overflows, reference_overflow_flag
>>> from opdiff import SideStats
>>> big = SideStats(-1.0, 65504.0, 0.0, 1.0, 0, 0, 0)
>>> overflows("float16", big), overflows("float32", big), reference_overflow_flag("float32", big)
(True, False, None)
>>> nan = SideStats(-1.0, 1.0, 0.0, 1.0, 3, 0, 0)
>>> overflows("bfloat16", nan), reference_overflow_flag("float16", nan)
(True, False)
"""

from __future__ import annotations

import math
from typing import Optional, Protocol

FP16_MAX = 65504.0
# The core's floating data types (opdiff.dumps.formats): the ones that can hold NaN or Inf.
FLOAT_TYPES = frozenset({"float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "hifloat8"})


class Extremes(Protocol):
    """What the rule reads of a tensor's statistics (SideStats, TensorStatistics)."""

    @property
    def min(self) -> float: ...

    @property
    def max(self) -> float: ...

    @property
    def nan(self) -> int: ...

    @property
    def pos_inf(self) -> int: ...

    @property
    def neg_inf(self) -> int: ...


def largest_magnitude(stats: Extremes) -> float:
    """max(|min|, |max|); NaN when the tensor has no number to compare (all NaN)."""
    return math.nan if math.isnan(stats.max) else max(abs(stats.min), abs(stats.max))


def beyond_fp16_range(stats: Extremes) -> bool:
    """The largest magnitude reaches float16's largest finite value."""
    return largest_magnitude(stats) >= FP16_MAX


def special_values(stats: Extremes) -> int:
    """NaN and infinite elements together."""
    return stats.nan + stats.pos_inf + stats.neg_inf


def overflows(dtype: Optional[str], stats: Extremes) -> bool:
    """The overflow rule: NaN or Inf in a float type, or a float16 tensor beyond float16's range."""
    if dtype not in FLOAT_TYPES:
        return False
    return special_values(stats) > 0 or (dtype == "float16" and beyond_fp16_range(stats))


def reference_overflow_flag(dtype: Optional[str], stats: Extremes) -> Optional[bool]:
    """The reference's OverFlow column (-overflow_detection): float16 only (None for other types),
    Inf or a magnitude of 65504 or more; NaN alone does not count there."""
    if dtype != "float16":
        return None
    return bool(stats.pos_inf or stats.neg_inf or beyond_fp16_range(stats))

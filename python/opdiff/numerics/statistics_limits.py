"""How far a clean device run's statistics (max, min, mean) may be from the golden's: the default
limits of the statistics verdict, derived from the tensor verdict's error model (opdiff.numerics.precision),
so that a tensor the tensor verdict passes has statistics the statistics verdict passes.
docs/metrics.md writes the derivation out; in short, with ``rho`` = the row's
:attr:`~opdiff.numerics.precision.PrecisionRow.error_norm` and M the golden's magnitude (its largest
|max| or |min|, the unit of every ``*NormDiff``):

* a passing tensor is x = y + e with ``||e|| <= rho ||y||``, so RMS(e) <= rho RMS(y) <= rho M;
* mean: ``|mean x - mean y| = |mean e| <= RMS(e) <= rho M`` (Cauchy-Schwarz), whatever e is;
* max and min: ``|max x - max y| <= max_i |e_i|``. Spread over the elements as roundings spread it
  (independent, near-Gaussian), no element of n is beyond ``t(n) RMS(e)`` but with probability
  :data:`MISSED_FRACTION`: ``t(n) = sqrt(2 ln(2 n / p))``, from ``P(|Z| > t) <= 2 exp(-t^2 / 2)``
  summed over the n elements;
* a statistics CSV prints 6 significant digits: up to 5e-6 M on each side, :data:`PRINTED_DIGITS` in all.

>>> from opdiff.numerics.precision import FP16_VS_FP32
>>> limits = statistics_limits(FP16_VS_FP32, 1344)
>>> round(limits.mean, 5), round(limits.extremes, 4)
(0.00506, 0.0333)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from opdiff.numerics.precision import PrecisionRow

#: p: the chance that a clean tensor's largest element error is beyond t(n) RMS(e), which is what
#: a false failure of its max or min would take (at the full error budget; real runs sit far below it).
MISSED_FRACTION = 1e-6
#: Both sides' statistics printed with 6 significant digits: 5e-6 of a value each, a value <= M.
PRINTED_DIGITS = 1e-5


@dataclass(frozen=True)
class StatisticsLimits:
    """The default limits of one tensor's statistics, in units of the golden's magnitude M."""

    mean: float  # on MeanNormDiff
    extremes: float  # on MaxNormDiff and MinNormDiff


def tail_factor(count: int) -> float:
    """t(n) = sqrt(2 ln(2 n / p)): how many RMS errors the largest of n independent near-Gaussian
    element errors stays within, but with probability p = MISSED_FRACTION.

    >>> round(tail_factor(1), 2), round(tail_factor(10**9), 2)
    (5.39, 8.39)
    """
    return math.sqrt(2.0 * math.log(2.0 * max(count, 1) / MISSED_FRACTION))


@lru_cache(maxsize=4096)  # asked for every statistics row; a run has a few (row, element count) pairs
def statistics_limits(row: PrecisionRow, count: int) -> StatisticsLimits:
    """The limits on a tensor of `count` (stored) elements whose dtype pair takes `row`."""
    rho = row.error_norm
    return StatisticsLimits(mean=rho + PRINTED_DIGITS, extremes=tail_factor(count) * rho + PRINTED_DIGITS)


__all__ = ["MISSED_FRACTION", "PRINTED_DIGITS", "StatisticsLimits", "statistics_limits", "tail_factor"]

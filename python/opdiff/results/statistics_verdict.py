"""Pass or fail for a statistics comparison: the metrics a threshold can be put on, their default
limits per data type, and the ``--fail-under METRIC=VALUE`` grammar for them.

The default limits follow from how far a clean device run's statistics can be from the golden's:

* the device stores each element rounded to its data type, so each element moves by at most the
  unit roundoff u times its size (fp16 u = 2**-11, bf16 u = 2**-8, fp32 u = 2**-24): the max and
  min move by at most u times the tensor's magnitude M (its largest |max| or |min|), and so does
  the mean (an average of elements each moved by at most u * M);
* the CSV prints each statistic with 6 significant digits: at most 5e-6 of the value on each side.

So a clean tensor has every ``*NormDiff`` (difference over M) below u + 1e-5. The limit is twice
the rounding, for the device's own arithmetic: fp16 1e-3, bf16 8e-3, fp32 (and wider, and integer
types, whose statistics are exact) 2e-5, float8 e4m3 0.125, e5m2 0.25; the coarser data type of
the two sides decides. A tensor scaled by 1.6 moves its max or min by 0.6 M: far beyond any limit.
NaN and ±Inf counts must agree (``NanInfCountDiff`` 0).

>>> verdict = StatisticsVerdict()
>>> verdict.limit_for("DT_FLOAT16", "DT_FLOAT"), verdict.limit_for("DT_BF16", "DT_BF16")
(0.001, 0.008)
>>> StatisticsThreshold.parse("MeanNormDiff=0.01")
StatisticsThreshold(metric='MeanNormDiff', value=0.01)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, List, Optional, Sequence, Tuple

from opdiff.results.limit_text import limit_metric, parse_limit
from opdiff.results.statistics_rows import StatisticsDifferences, StatisticsRow

#: The statistics metrics by name (``--fail-under NAME=VALUE``), each a StatisticsDifferences field;
#: a row fails when the value is above the limit.
STATISTICS_METRICS: Dict[str, str] = {
    "MaxAbsDiff": "max_abs", "MinAbsDiff": "min_abs", "MeanAbsDiff": "mean_abs",
    "MaxRelDiff": "max_rel", "MinRelDiff": "min_rel", "MeanRelDiff": "mean_rel",
    "MaxNormDiff": "max_norm", "MinNormDiff": "min_norm", "MeanNormDiff": "mean_norm",
    "NanInfCountDiff": "special",
}  # fmt: skip

#: The default *NormDiff limit by data type (twice the unit roundoff, at least 2e-5: see above).
DEFAULT_LIMITS: Dict[str, float] = {
    "DT_FLOAT16": 1e-3,
    "DT_BF16": 8e-3,
    "DT_FLOAT8_E4M3FN": 0.125,
    "DT_FLOAT8_E5M2": 0.25,
    "DT_HIFLOAT8": 0.125,
}
EXACT_LIMIT = 2e-5  # fp32, fp64 and integer types: the 6 printed digits of both sides, twice
NORM_METRICS = ("MaxNormDiff", "MinNormDiff", "MeanNormDiff")


@dataclass(frozen=True)
class StatisticsThreshold:
    """A limit on one statistics metric: a row fails when its value is above `value` (or NaN)."""

    metric: str
    value: float

    def __post_init__(self) -> None:
        if self.metric not in STATISTICS_METRICS:
            raise ValueError(f"no statistics metric {self.metric!r}; known: {', '.join(STATISTICS_METRICS)}")

    def value_of(self, differences: StatisticsDifferences) -> float:
        return float(getattr(differences, STATISTICS_METRICS[self.metric]))

    def violated_by(self, differences: StatisticsDifferences) -> bool:
        value = self.value_of(differences)
        return math.isnan(value) or value > self.value

    @classmethod
    def parse(cls, text: str) -> StatisticsThreshold:
        """From ``METRIC=VALUE``."""
        return cls(*parse_limit(text, "MeanNormDiff=0.001"))


def is_statistics_threshold(text: str) -> bool:
    """Whether a ``--fail-under`` text names a statistics metric."""
    return limit_metric(text) in STATISTICS_METRICS


@lru_cache(maxsize=256)  # asked for every row; a comparison has a handful of type pairs
def _default_limit(my_type: str, golden_type: str) -> float:
    return max(DEFAULT_LIMITS.get(my_type, EXACT_LIMIT), DEFAULT_LIMITS.get(golden_type, EXACT_LIMIT))


@dataclass(frozen=True)
class StatisticsVerdict:
    """Which rows fail: the given thresholds, or (none given) the default limits of each row's
    data types on the three *NormDiff metrics plus equal NaN/Inf counts."""

    thresholds: Tuple[StatisticsThreshold, ...] = ()

    @staticmethod
    def limit_for(my_type: Optional[str], golden_type: Optional[str]) -> float:
        """The default *NormDiff limit: the coarser of the two data types decides."""
        return _default_limit(my_type or "", golden_type or "")

    def limits(self, row: StatisticsRow) -> Tuple[StatisticsThreshold, ...]:
        if self.thresholds:
            return self.thresholds
        limit = self.limit_for(row.my.data_type if row.my else None, row.golden.data_type if row.golden else None)
        return tuple(StatisticsThreshold(name, limit) for name in NORM_METRICS) + (StatisticsThreshold("NanInfCountDiff", 0),)

    def violations(self, row: StatisticsRow) -> List[StatisticsThreshold]:
        if row.differences is None:
            return []
        return [t for t in self.limits(row) if t.violated_by(row.differences)]

    def fails(self, row: StatisticsRow) -> bool:
        d = row.differences
        if d is None:
            return False
        if self.thresholds:
            return any(t.violated_by(d) for t in self.thresholds)
        # The defaults, written out (the same as violations(), asked for every row several times).
        assert row.my is not None and row.golden is not None
        worst = d.worst_norm
        return d.special > 0 or not worst <= _default_limit(row.my.data_type, row.golden.data_type)  # NaN fails

    def describe(self) -> str:
        if self.thresholds:
            return ", ".join(f"{t.metric} <= {t.value:g}" for t in self.thresholds)
        return "defaults: *NormDiff <= 1e-3 fp16, 8e-3 bf16, 2e-5 fp32; NaN/Inf counts equal"

    @classmethod
    def from_texts(cls, texts: Sequence[str]) -> StatisticsVerdict:
        return cls(tuple(StatisticsThreshold.parse(text) for text in texts))


__all__ = ["DEFAULT_LIMITS", "STATISTICS_METRICS", "StatisticsThreshold", "StatisticsVerdict", "is_statistics_threshold"]

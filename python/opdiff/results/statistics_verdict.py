"""Pass or fail for a statistics comparison: the metrics a threshold can be put on, the default
limits, and the ``--fail-under METRIC=VALUE`` grammar for them.

The default limits come from the tensor verdict's error model: each row takes the precision row
of its data types exactly as the tensor verdict would (opdiff.numerics.precision: the coarser type
decides, a device float32 takes the fp16 rows, NPU vs NPU and quantized runs their own rows), and
opdiff.numerics.statistics_limits derives from it how far max, min and mean can move when every
element carries an error of that size. A tensor fails when its MeanNormDiff or its MaxNormDiff /
MinNormDiff (differences over the golden's magnitude M) is beyond those limits, or its NaN and
±Inf counts differ (``NanInfCountDiff`` > 0). A tensor scaled by 1.6 moves its max or min by 0.6 M:
beyond the fp16 and bf16 limits.

>>> from opdiff.results.rows import TensorId
>>> from opdiff.numerics.tensor_statistics import TensorStatistics
>>> golden = TensorStatistics("output", 0, "DT_FLOAT", "ND", (4096,), 4096, 3.49743, -3.6, 0.01, 0, 0, 0)
>>> mine = TensorStatistics("output", 0, "DT_FLOAT", "ND", (4096,), 4096, 3.49723, -3.6, 0.01, 0, 0, 0)
>>> row = StatisticsRow(1, "MatMulV2", "fc", "fc", TensorId("fc", "output", 0), mine, golden,
...                     differences=StatisticsDifferences.between(mine, golden))
>>> verdict = StatisticsVerdict()
>>> verdict.fails(row), verdict.precision_row(row).name, round(verdict.default_limits(row).extremes, 4)
(False, 'fp16 vs fp32', 0.0341)
>>> StatisticsThreshold.parse("MeanNormDiff=0.01")
StatisticsThreshold(metric='MeanNormDiff', value=0.01)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, List, Sequence, Tuple

from opdiff.numerics.precision import PRECISION_ROWS, PrecisionRow, precision_row
from opdiff.numerics.statistics_limits import MISSED_FRACTION, StatisticsLimits, statistics_limits
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


@lru_cache(maxsize=4096)  # asked for every row, several times; a run has a few (types, count) kinds
def _default_limits(my_type: str, golden_type: str, count: int, npu_vs_npu: bool, quantized: bool) -> StatisticsLimits:
    return statistics_limits(precision_row(my_type, golden_type, npu_vs_npu=npu_vs_npu, quantized=quantized), count)


@dataclass(frozen=True)
class StatisticsVerdict:
    """Which rows fail: the given thresholds, or (none given) the default limits of each row
    (from its precision row and element count) plus equal NaN/Inf counts. `npu_vs_npu` and
    `quantized` choose the precision rows as they do for the tensor verdict."""

    thresholds: Tuple[StatisticsThreshold, ...] = ()
    npu_vs_npu: bool = False
    quantized: bool = False

    def precision_row(self, row: StatisticsRow) -> PrecisionRow:
        """The tensor verdict's precision row for the row's data types."""
        assert row.my is not None and row.golden is not None
        return precision_row(row.my.data_type, row.golden.data_type, npu_vs_npu=self.npu_vs_npu, quantized=self.quantized)

    def default_limits(self, row: StatisticsRow) -> StatisticsLimits:
        """The default limits of a compared row (over the larger element count: padding included)."""
        assert row.my is not None and row.golden is not None
        count = max(row.my.count, row.golden.count)
        return _default_limits(row.my.data_type, row.golden.data_type, count, self.npu_vs_npu, self.quantized)

    def limits(self, row: StatisticsRow) -> Tuple[StatisticsThreshold, ...]:
        if self.thresholds:
            return self.thresholds
        limits = self.default_limits(row)
        return (StatisticsThreshold("MaxNormDiff", limits.extremes), StatisticsThreshold("MinNormDiff", limits.extremes),
                StatisticsThreshold("MeanNormDiff", limits.mean), StatisticsThreshold("NanInfCountDiff", 0))

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
        if d.special > 0 or d.worst_norm != d.worst_norm:  # NaN/Inf counts differ, or a statistic is NaN on one side
            return True
        limits = self.default_limits(row)
        extreme = d.max_norm if d.max_norm > d.min_norm else d.min_norm
        return not (extreme <= limits.extremes and d.mean_norm <= limits.mean)

    def describe(self, rows: Sequence[StatisticsRow] = ()) -> str:
        """The limits in words; for the defaults, those of the precision rows that `rows` take."""
        if self.thresholds:
            return ", ".join(f"{t.metric} <= {t.value:g}" for t in self.thresholds)
        compared = [row for row in rows if row.differences is not None and row.my is not None and row.golden is not None]
        extremes: Dict[str, List[float]] = {}
        means: Dict[str, float] = {}
        for row in compared:
            name = self.precision_row(row).name
            limits = self.default_limits(row)
            extremes.setdefault(name, []).append(limits.extremes)
            means[name] = limits.mean
        parts = [f"{name}: MeanNormDiff <= {means[name]:.3g}, Max/MinNormDiff <= {_span(extremes[name])}"
                 for name in (row.name for row in PRECISION_ROWS) if name in means]
        if not parts:
            parts = [f"MeanNormDiff <= rho, Max/MinNormDiff <= rho sqrt(2 ln(2n / {MISSED_FRACTION:g})), rho the error "
                     "norm the tensor verdict's precision row passes"]
        return "defaults: " + "; ".join(parts) + "; NaN/Inf counts equal"

    @classmethod
    def from_texts(cls, texts: Sequence[str]) -> StatisticsVerdict:
        return cls(tuple(StatisticsThreshold.parse(text) for text in texts))


def _span(values: Sequence[float]) -> str:
    """``0.0333`` or, where element counts differ, ``0.0331 to 0.0345``."""
    low, high = f"{min(values):.3g}", f"{max(values):.3g}"
    return low if low == high else f"{low} to {high}"


__all__ = ["STATISTICS_METRICS", "StatisticsThreshold", "StatisticsVerdict", "is_statistics_threshold"]

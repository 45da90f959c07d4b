"""The row schema of a statistics comparison: one tensor's statistics on both sides and their
differences (docs/scenario-statistics.md lists the CSV columns made from it)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Tuple

from opdiff.numerics.frozen import build_frozen
from opdiff.numerics.tensor_statistics import TensorStatistics
from opdiff.results.rows import TensorId


def _difference(a: float, b: float) -> float:
    """|a - b|, 0 where both are the same infinity or both NaN (the same statistic)."""
    if a == b or (math.isnan(a) and math.isnan(b)):
        return 0.0
    return abs(a - b)


def _relative(difference: float, reference: float) -> float:
    if difference == 0.0:
        return 0.0
    return difference / abs(reference) if reference != 0.0 else math.inf


def magnitude(stats: TensorStatistics) -> float:
    """The largest finite |max| or |min|: the scale a statistic's error is measured against."""
    top, bottom = abs(stats.max), abs(stats.min)
    top = top if top != math.inf and top == top else 0.0  # written out: this runs for every row
    bottom = bottom if bottom != math.inf and bottom == bottom else 0.0
    return top if top > bottom else bottom


@dataclass(frozen=True)
class StatisticsDifferences:
    """How far my statistics are from the golden's.

    ``*_abs`` = |my - golden|; ``*_rel`` = that over |golden| (inf when the golden statistic is 0
    and mine is not); ``*_norm`` = that over the golden tensor's magnitude (its largest finite
    |max| or |min|; my side's when the golden's is 0), the measure the default verdict uses: a
    mean near 0 makes ``mean_rel`` huge for a rounding-sized change, ``mean_norm`` stays as small
    as the rounding. ``special`` is the difference of the NaN and ±Inf counts, summed.

    >>> from opdiff.numerics.tensor_statistics import TensorStatistics
    >>> g = TensorStatistics("output", 0, "DT_FLOAT", "ND", (4,), 4, 2.0, -1.0, 0.01, 0, 0, 0)
    >>> m = TensorStatistics("output", 0, "DT_FLOAT16", "ND", (4,), 4, 3.2, -1.6, 0.016, 0, 0, 0)
    >>> d = StatisticsDifferences.between(m, g)
    >>> round(d.max_rel, 6), round(d.mean_rel, 6), round(d.mean_norm, 6)
    (0.6, 0.6, 0.003)
    """

    max_abs: float
    min_abs: float
    mean_abs: float
    max_rel: float
    min_rel: float
    mean_rel: float
    max_norm: float
    min_norm: float
    mean_norm: float
    special: int
    worst_norm: float  # the largest of the three *_norm (NaN when one is NaN): what the default verdict reads

    @classmethod
    def between(cls, my: TensorStatistics, golden: TensorStatistics) -> StatisticsDifferences:
        scale = magnitude(golden) or magnitude(my) or 1.0
        max_abs, min_abs, mean_abs = _difference(my.max, golden.max), _difference(my.min, golden.min), _difference(my.mean, golden.mean)
        special = abs(my.nan - golden.nan) + abs(my.neg_inf - golden.neg_inf) + abs(my.pos_inf - golden.pos_inf)
        max_norm, min_norm, mean_norm = max_abs / scale, min_abs / scale, mean_abs / scale
        worst = max_norm if max_norm > min_norm else min_norm
        worst = worst if worst > mean_norm else mean_norm
        if max_norm != max_norm or min_norm != min_norm or mean_norm != mean_norm:
            worst = math.nan
        # Built from its field dict (opdiff.numerics.frozen): one per compared tensor, 200,000 in a big run.
        return build_frozen(cls, {
            "max_abs": max_abs, "min_abs": min_abs, "mean_abs": mean_abs,
            "max_rel": _relative(max_abs, golden.max), "min_rel": _relative(min_abs, golden.min),
            "mean_rel": _relative(mean_abs, golden.mean),
            "max_norm": max_norm, "min_norm": min_norm, "mean_norm": mean_norm, "special": special, "worst_norm": worst,
        })


@dataclass(frozen=True)
class StatisticsRow:
    """One tensor of a statistics comparison, in the tensor comparison's terms (Index, OpType,
    NPUDump, GroundTruth, TensorIndex) plus both sides' statistics.

    ``golden`` is the golden's statistics as the device would have taken them: where my side
    stores padding the golden's logical tensor lacks, ``padding`` zeros are added to it (see
    opdiff.engine.statistics_engine). ``differences`` is None when the pair could not be compared, and
    ``reasons`` says why.
    """

    index: int
    op_type: str
    npu_dump: str
    ground_truth: str
    tensor: TensorId
    my: Optional[TensorStatistics] = None
    golden: Optional[TensorStatistics] = None
    padding: int = 0
    differences: Optional[StatisticsDifferences] = None
    reasons: Tuple[str, ...] = ()
    op_sequence: Optional[int] = None
    my_source: str = ""  # the file my statistics come from
    golden_source: str = ""

    @property
    def compared(self) -> bool:
        return self.differences is not None

    @property
    def tensor_index(self) -> str:
        """The TensorIndex column's text."""
        return str(self.tensor)


__all__ = ["StatisticsDifferences", "StatisticsRow", "magnitude"]

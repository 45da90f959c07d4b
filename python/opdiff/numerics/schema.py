"""The metric schema, defined once: every metric opdiff reports, in its order, with its names, unit
and direction. Reports, verdicts, views and the core adapter read it instead of spelling the list out.

>>> [spec.name for spec in METRICS][:3]
['CosineSimilarity', 'MaxAbsoluteError', 'AccumulatedRelativeError']
>>> ALGORITHMS[5], METRIC_FIELDS["NormRatioError"], BY_NAME["SQNR"].label
('StandardDeviation', 'norm_ratio_error', 'SQNR (dB)')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Optional, Tuple


@dataclass(frozen=True)
class MetricSpec:
    """One metric.

    ``name`` is its column in the result CSV and the name ``-alg`` and ``--fail-under`` take; ``field``
    the :class:`opdiff.Metrics` attribute holding it (None for StandardDeviation, which is four
    values); ``label`` how the summary views title it; ``index_field`` the attribute with the flat
    index where it was reached (for the max-type metrics).
    """

    name: str
    field: Optional[str]
    label: str
    unit: str = ""
    higher_is_better: bool = False
    reference: bool = False  # one of the reference tool's ten algorithms (-alg 0-9, in this order)
    threshold: bool = False  # a --fail-under limit may be put on it
    index_field: Optional[str] = None
    not_computed_when_empty: bool = False  # "NaN" in the reference's CSV for empty tensors


METRICS: Tuple[MetricSpec, ...] = (
    MetricSpec("CosineSimilarity", "cosine_similarity", "CosineSimilarity", higher_is_better=True, reference=True,
               threshold=True),
    MetricSpec("MaxAbsoluteError", "max_absolute_error", "MaxAbsoluteError", reference=True, threshold=True,
               index_field="max_absolute_error_index", not_computed_when_empty=True),
    MetricSpec("AccumulatedRelativeError", "accumulated_relative_error", "AccumulatedRelativeError", reference=True,
               threshold=True),
    MetricSpec("RelativeEuclideanDistance", "relative_euclidean_distance", "RelativeEuclideanDistance", reference=True,
               threshold=True),
    MetricSpec("KullbackLeiblerDivergence", "kullback_leibler_divergence", "KullbackLeiblerDivergence", reference=True,
               threshold=True, not_computed_when_empty=True),
    MetricSpec("StandardDeviation", None, "StandardDeviation", reference=True),
    MetricSpec("MeanAbsoluteError", "mean_absolute_error", "MeanAbsoluteError", reference=True, threshold=True),
    MetricSpec("RootMeanSquareError", "root_mean_square_error", "RootMeanSquareError", reference=True, threshold=True),
    MetricSpec("MaxRelativeError", "max_relative_error", "MaxRelativeError", reference=True, threshold=True,
               index_field="max_relative_error_index", not_computed_when_empty=True),
    MetricSpec("MeanRelativeError", "mean_relative_error", "MeanRelativeError", reference=True, threshold=True),
    MetricSpec("SQNR", "sqnr_db", "SQNR (dB)", unit="dB", higher_is_better=True),
    MetricSpec("AllcloseFraction", "allclose_fraction", "allclose fraction", higher_is_better=True),
    MetricSpec("NormRatioError", "norm_ratio_error", "NormRatioError", threshold=True),
)
"""Every metric, the reference's ten first in its order."""

BY_NAME: Dict[str, MetricSpec] = {spec.name: spec for spec in METRICS}

ALGORITHMS: Tuple[str, ...] = tuple(spec.name for spec in METRICS if spec.reference)
"""The reference tool's built-in algorithms, in its order (indices 0-9 of ``-alg``)."""

COSINE_SIMILARITY = "CosineSimilarity"
KULLBACK_LEIBLER_DIVERGENCE = "KullbackLeiblerDivergence"  # the one metric that costs a second pass
STANDARD_DEVIATION = "StandardDeviation"
NORM_RATIO_ERROR = "NormRatioError"

METRIC_FIELDS: Dict[str, str] = {spec.name: spec.field for spec in METRICS if spec.threshold and spec.field}
"""The Metrics field of each metric a threshold can be put on."""

HIGHER_IS_BETTER: FrozenSet[str] = frozenset(spec.name for spec in METRICS if spec.higher_is_better)

NOT_COMPUTED_WHEN_EMPTY: FrozenSet[str] = frozenset(spec.name for spec in METRICS if spec.not_computed_when_empty)

SIDE_FIELDS: Tuple[str, ...] = ("min", "max", "mean", "std", "nan", "pos_inf", "neg_inf")
"""The statistics of each side (:class:`opdiff.SideStats`), in order."""

VALUE_FIELDS: Tuple[str, ...] = (
    tuple(spec.field for spec in METRICS if spec.reference and spec.field)
    + tuple(spec.index_field for spec in METRICS if spec.index_field)
    + tuple(spec.field for spec in METRICS if not spec.reference and spec.field)
)
"""The scalar fields of a Metrics after ``count``, ``x`` and ``y``, in its order (the JSON report's too)."""

__all__ = [
    "ALGORITHMS",
    "BY_NAME",
    "COSINE_SIMILARITY",
    "HIGHER_IS_BETTER",
    "KULLBACK_LEIBLER_DIVERGENCE",
    "METRICS",
    "METRIC_FIELDS",
    "NORM_RATIO_ERROR",
    "NOT_COMPUTED_WHEN_EMPTY",
    "SIDE_FIELDS",
    "STANDARD_DEVIATION",
    "VALUE_FIELDS",
    "MetricSpec",
]

"""Metric values as the reference tool (msaccucmp) prints them in its CSV.

Numbers use ``%.6f`` (so NaN and Inf print as ``nan``, ``inf``, ``-inf``); the capitalised ``NaN``
means "not computed" (a side all zero for the cosine, an empty tensor for the max-type metrics and
KL); two all-zero sides give the literal cosine ``1.0``; StandardDeviation prints
``(mean;std),(mean;std)`` with ``%.3f`` and values under 0.001 in magnitude shown as 0.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence

from opdiff.numerics.schema import (
    COSINE_SIMILARITY,
    KULLBACK_LEIBLER_DIVERGENCE,
    METRICS,
    NOT_COMPUTED_WHEN_EMPTY,
    STANDARD_DEVIATION,
)
from opdiff.numerics.values import Metrics, Note

NOT_COMPUTED = "NaN"
# The Metrics field of each reference metric that is one number (all but StandardDeviation).
_FIELDS: Dict[str, str] = {spec.name: spec.field for spec in METRICS if spec.reference and spec.field}


def _number(value: float) -> str:
    return f"{value:.6f}"


def _std(value: float) -> float:
    return 0.0 if abs(value) < 0.001 else value


def format_metrics(names: Sequence[str], m: Metrics) -> List[str]:
    """The CSV texts of several metrics (the values computed once for all of them)."""
    if m.notes:
        values = m.reference_values()
        return [format_metric(name, m, values) for name in names]
    # Without notes every metric prints as its number (the common case, thousands of rows a run),
    # read straight from its field: no dict of all ten is built for it.
    return [_standard_deviation(m) if name == STANDARD_DEVIATION else f"{getattr(m, _FIELDS[name]):.6f}" for name in names]


def _standard_deviation(m: Metrics) -> str:
    return "({:.3f};{:.3f}),({:.3f};{:.3f})".format(*[_std(v) for v in m.standard_deviation])


def format_metric(name: str, m: Metrics, values: Optional[Mapping[str, object]] = None) -> str:
    """The reference's CSV text for metric `name` (one of opdiff.ALGORITHMS).

    >>> import numpy as np, opdiff
    >>> m = opdiff.metrics(np.zeros(4, np.float32), np.zeros(4, np.float32))
    >>> format_metric("CosineSimilarity", m), format_metric("StandardDeviation", m)
    ('1.0', '(0.000;0.000),(0.000;0.000)')
    """
    if name == COSINE_SIMILARITY:
        if Note.SCALAR in m.notes:
            return _number(1.0)
        if Note.BOTH_ZERO in m.notes:
            return "1.0"
        if Note.MY_ZERO in m.notes or Note.GOLDEN_ZERO in m.notes:
            return NOT_COMPUTED
        return _number(m.cosine_similarity)
    if name == STANDARD_DEVIATION:
        return _standard_deviation(m)
    if Note.EMPTY in m.notes and name in NOT_COMPUTED_WHEN_EMPTY:
        return NOT_COMPUTED
    if name == KULLBACK_LEIBLER_DIVERGENCE and Note.KL_SKIPPED in m.notes:
        return NOT_COMPUTED
    value = (values if values is not None else m.reference_values())[name]
    assert isinstance(value, float)
    return _number(value)

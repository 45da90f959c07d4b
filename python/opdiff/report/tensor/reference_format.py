"""Metric values as the reference tool (msaccucmp) prints them in its CSV.

Numbers use ``%.6f`` (so NaN and Inf print as ``nan``, ``inf``, ``-inf``); the capitalised ``NaN``
means "not computed" (a side all zero for the cosine, an empty tensor for the max-type metrics and
KL); two all-zero sides give the literal cosine ``1.0``; StandardDeviation prints
``(mean;std),(mean;std)`` with ``%.3f`` and values under 0.001 in magnitude shown as 0.

The rules live in the core (cpp/include/opdiff/reference_text.hpp), which writes these cells for
every pair it compares; a Metrics made in Python (a plug-in's conversion, FFTS+ slices, a report
read back) goes through the same code here.
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

from opdiff.numerics.core import CoreMetrics
from opdiff.numerics.core_results import core_fields
from opdiff.numerics.schema import ALGORITHMS
from opdiff.numerics.values import Metrics

NOT_COMPUTED = "NaN"
_POSITION = {name: k for k, name in enumerate(ALGORITHMS)}


def reference_cells(m: Metrics) -> Tuple[str, ...]:
    """The CSV texts of the ten reference metrics, in ``ALGORITHMS`` (``-alg``) order."""
    cells: Tuple[str, ...] = CoreMetrics.from_fields(core_fields(m)).reference_cells()
    return cells


def format_metrics(names: Sequence[str], m: Metrics) -> List[str]:
    """The CSV texts of several metrics (the values formatted once for all of them)."""
    cells = reference_cells(m)
    return [cells[_POSITION[name]] for name in names]


def format_metric(name: str, m: Metrics) -> str:
    """The reference's CSV text for metric `name` (one of opdiff.ALGORITHMS).

    >>> import numpy as np, opdiff
    >>> m = opdiff.metrics(np.zeros(4, np.float32), np.zeros(4, np.float32))
    >>> format_metric("CosineSimilarity", m), format_metric("StandardDeviation", m)
    ('1.0', '(0.000;0.000),(0.000;0.000)')
    """
    return reference_cells(m)[_POSITION[name]]

"""Reading the local errors (``opdiff compare --isolate``) of a comparison's rows: the local verdict
of a row, and the error measure that amplification and the advisor share."""

from __future__ import annotations

import math
from typing import Optional

from opdiff.numerics.values import Metrics
from opdiff.results.local_error import LocalVerdict
from opdiff.results.rows import CompareRow
from opdiff.results.tensor_report import Report
from opdiff.results.verdict import PrecisionVerdict


def error_measure(metrics: Optional[Metrics]) -> float:
    """The error measure the advisor compares across ops: 1 - cosine for direction and, for
    magnitude, NormRatioError^2 / 2, its equivalent in those units (an error of relative norm e
    costs the cosine about e^2 / 2), whichever is larger; 1 for NaN or no metrics.

    >>> import numpy as np, opdiff
    >>> y = np.linspace(1, 2, 64)
    >>> round(error_measure(opdiff.metrics(1.1 * y, y)), 6)   # 10% too large, same direction
    0.005
    """
    if metrics is None:
        return 1.0
    cosine, norm = metrics.cosine_similarity, metrics.norm_ratio_error
    if math.isnan(cosine) or math.isnan(norm):
        return 1.0
    return max(0.0, 1.0 - cosine, min(norm, 1.0) ** 2 / 2)


def local_judge(report: Report) -> PrecisionVerdict:
    """The verdict whose local rows judge the report's local errors: the report's default one
    (whatever verdict judges the end-to-end rows, an op's own error is judged by its precision)."""
    judge = report.verdict()
    assert isinstance(judge, PrecisionVerdict)
    return judge


def local_verdict(row: CompareRow, judge: PrecisionVerdict) -> Optional[LocalVerdict]:
    """pass, fail or not isolated for a row with a local error; None for a row without one."""
    if row.local is None:
        return None
    if not row.local.isolated:
        return LocalVerdict.NOT_ISOLATED
    return LocalVerdict.FAIL if judge.fails_locally(row) else LocalVerdict.PASS


def is_isolated_report(report: Report) -> bool:
    """Whether the rows carry local errors (the comparison ran with --isolate)."""
    return any(row.local is not None for row in report.rows)

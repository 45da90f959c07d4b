"""Comparing core results with the float64 reference under the tolerances of issue 2."""

from __future__ import annotations

import math
from typing import Dict

import numpy as np

from opdiff import Metrics
from tests.support.reference_metrics import argmax_candidates

RELATIVE = 1e-6
ABSOLUTE = 1e-9
# Metrics that may cancel to near zero, and the scale their absolute tolerance is taken against:
# a sum over data of size S has round-off ~ S * eps whatever the algorithm.
SQNR_ABSOLUTE_DB = 1e-5  # 10 log10(1 + 2e-7): the float32 rounding of x - y seen in decibels


def close(actual: float, expected: float, absolute: float = ABSOLUTE) -> bool:
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    if math.isinf(expected) or math.isinf(actual):
        return actual == expected
    return abs(actual - expected) <= RELATIVE * abs(expected) + absolute


def assert_matches_reference(m: Metrics, ref: Dict[str, float], x: np.ndarray, y: np.ndarray) -> None:
    x64 = np.asarray(x, np.float64).ravel()
    y64 = np.asarray(y, np.float64).ravel()
    with np.errstate(all="ignore"):
        scale_x = float(np.nanmax(np.abs(x64[np.isfinite(x64)]), initial=0.0))
        scale_y = float(np.nanmax(np.abs(y64[np.isfinite(y64)]), initial=0.0))
    problems = []
    for name in (
        "cosine_similarity",
        "max_absolute_error",
        "accumulated_relative_error",
        "relative_euclidean_distance",
        "kullback_leibler_divergence",
        "mean_absolute_error",
        "root_mean_square_error",
        "max_relative_error",
        "mean_relative_error",
        "allclose_fraction",
        "norm_ratio_error",
    ):
        if not close(getattr(m, name), ref[name]):
            problems.append(f"{name}: got {getattr(m, name)!r}, want {ref[name]!r}")
    if not close(m.sqnr_db, ref["sqnr_db"], SQNR_ABSOLUTE_DB):
        problems.append(f"sqnr_db: got {m.sqnr_db!r}, want {ref['sqnr_db']!r}")
    for side, stats, scale in (("x", m.x, scale_x), ("y", m.y, scale_y)):
        for field in ("min", "max", "nan", "pos_inf", "neg_inf"):
            if not close(float(getattr(stats, field)), float(ref[f"{side}.{field}"])):
                problems.append(f"{side}.{field}: got {getattr(stats, field)!r}, want {ref[f'{side}.{field}']!r}")
        # mean and std of data of scale S carry S * eps-sized round-off in any summation order
        for field in ("mean", "std"):
            if not close(getattr(stats, field), ref[f"{side}.{field}"], ABSOLUTE + 1e-11 * scale):
                problems.append(f"{side}.{field}: got {getattr(stats, field)!r}, want {ref[f'{side}.{field}']!r}")
    assert m.count == ref["count"]
    assert not problems, "\n".join(problems)
    _assert_argmax(m, x64, y64)


def _assert_argmax(m: Metrics, x: np.ndarray, y: np.ndarray) -> None:
    if x.size == 0:
        return
    with np.errstate(all="ignore"):
        ad = np.abs(x - y)
        ay = np.abs(y)
        rel = np.where(ay > 2.0**-52, np.where(np.isinf(y), np.abs(x / y - 1), ad / ay), 0.0)
    assert m.max_absolute_error_index in argmax_candidates(ad, 1e-6), "max_absolute_error_index"
    assert m.max_relative_error_index in argmax_candidates(rel, 1e-6), "max_relative_error_index"

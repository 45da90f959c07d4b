"""A float64 numpy implementation of every metric, written from the definitions
(docs/reference/reference-tool.md §4.1). The core is tested against it."""

from __future__ import annotations

import math
from typing import Dict, Sequence

import numpy as np

EPS = float(np.finfo(np.float64).eps)  # the reference's EPS
EPS32 = float(np.finfo(np.float32).eps)  # its KL floor


def reference_metrics(
    x: np.ndarray, y: np.ndarray, shape: Sequence[int], rtol: float = 1e-3, atol: float = 1e-5
) -> Dict[str, float]:
    x = np.asarray(x, np.float64).ravel()
    y = np.asarray(y, np.float64).ravel()
    n = x.size
    out: Dict[str, float] = {"count": n}
    with np.errstate(all="ignore"):
        d = x - y
        ad = np.abs(d)
        # cosine, with the reference's scalar / zero-side rules
        a, b = float(np.sqrt(np.dot(x, x))), float(np.sqrt(np.dot(y, y)))
        if sum(shape) == len(shape) or (a <= EPS and b < EPS):
            cos = 1.0
        elif np.sqrt(a) <= EPS or np.sqrt(b) <= EPS:
            cos = math.nan
        else:
            cos = float(np.dot(x, y)) / (a * b)
            cos = cos if not cos > 1.0 else 1.0
        out["cosine_similarity"] = cos
        out["max_absolute_error"] = float(ad.max()) if n else math.nan
        ay = np.abs(y)
        rel = np.where(ay > EPS, np.where(np.isinf(y), np.abs(x / y - 1), ad / ay), 0.0)
        out["accumulated_relative_error"] = float(rel.sum())
        out["max_relative_error"] = float(rel.max()) if n else math.nan
        out["mean_relative_error"] = float(rel.sum() / n) if n else math.nan
        s = float(np.dot(y, y))
        out["relative_euclidean_distance"] = 0.0 if np.sqrt(s) <= EPS else float(np.sqrt(np.dot(d, d) / s))
        out["mean_absolute_error"] = float(ad.sum() / n) if n else math.nan
        out["root_mean_square_error"] = float(np.sqrt(np.dot(d, d) / n)) if n else math.nan
        out["kullback_leibler_divergence"] = _kl(x, y)
        sq = float(np.dot(d, d))
        out["sqnr_db"] = math.inf if sq == 0 else float(10 * np.log10(np.dot(y, y) / sq))
        sx = float(np.dot(x, x))
        if s == 0 and not math.isnan(sx):
            out["norm_ratio_error"] = 0.0 if sx == 0 else math.inf
        else:
            out["norm_ratio_error"] = abs(math.sqrt(sx) / math.sqrt(s) - 1.0) if s == s and sx == sx else math.nan
        out["allclose_fraction"] = float(np.mean((ad <= atol + rtol * ay) | (x == y))) if n else math.nan
        for side, v in (("x", x), ("y", y)):
            finite_or_inf = v[~np.isnan(v)]
            out[f"{side}.min"] = float(finite_or_inf.min()) if finite_or_inf.size else math.nan
            out[f"{side}.max"] = float(finite_or_inf.max()) if finite_or_inf.size else math.nan
            out[f"{side}.mean"] = float(v.mean()) if n else math.nan
            out[f"{side}.std"] = float(v.std()) if n else math.nan
            out[f"{side}.nan"] = int(np.isnan(v).sum())
            out[f"{side}.pos_inf"] = int(np.isposinf(v).sum())
            out[f"{side}.neg_inf"] = int(np.isneginf(v).sum())
    return out


def _kl(x: np.ndarray, y: np.ndarray) -> float:
    if x.size == 0 or not (np.isfinite(x).all() and np.isfinite(y).all()):
        return math.nan

    def distribution(v: np.ndarray) -> np.ndarray:
        lo, hi = v.min(), v.max()
        p = (v - lo) / (hi - lo) if hi != lo else v.copy()
        p = np.maximum(p, EPS32)
        return p / p.sum()

    p, q = distribution(x), distribution(y)
    kl = float(np.sum(p * np.log(p / q)))
    return 0.0 if abs(kl) < EPS else kl


def argmax_candidates(values: np.ndarray, tolerance: float) -> np.ndarray:
    """Indices whose value is within `tolerance` (relative) of the maximum (ties and near-ties
    computed in float32 by the kernels may pick any of these)."""
    if np.isnan(values).any():
        return np.array([int(np.argmax(np.isnan(values)))])
    top = values.max()
    if np.isinf(top):
        return np.flatnonzero(values == top)
    return np.flatnonzero(values >= top - tolerance * abs(top))

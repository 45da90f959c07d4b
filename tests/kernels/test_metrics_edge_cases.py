"""The reference tool's edge cases (docs/reference/reference-tool.md §4.1), on every SIMD path."""

from __future__ import annotations

import math

import numpy as np
import pytest

import opdiff
from opdiff.numerics.core_adapter import compute_metrics

pytestmark = pytest.mark.kernels


def run(x, y, simd: str) -> opdiff.Metrics:
    return compute_metrics(np.asarray(x, np.float32), np.asarray(y, np.float32), simd=simd)


def test_all_zero_golden(simd: str) -> None:
    m = run([1, 2, 3, 4], [0, 0, 0, 0], simd)
    assert math.isnan(m.cosine_similarity)
    assert opdiff.Note.GOLDEN_ZERO in m.notes
    assert m.relative_euclidean_distance == 0.0
    assert m.accumulated_relative_error == m.max_relative_error == m.mean_relative_error == 0.0
    assert math.isfinite(m.kullback_leibler_divergence)


def test_all_zero_both_sides(simd: str) -> None:
    m = run([0, 0, 0, 0], [0, 0, 0, 0], simd)
    assert m.cosine_similarity == 1.0
    for value in (
        m.max_absolute_error,
        m.accumulated_relative_error,
        m.relative_euclidean_distance,
        m.kullback_leibler_divergence,
        m.mean_absolute_error,
        m.root_mean_square_error,
        m.max_relative_error,
        m.mean_relative_error,
    ):
        assert value == 0.0
    assert m.standard_deviation == (0.0, 0.0, 0.0, 0.0)


def test_all_zero_my_side(simd: str) -> None:
    m = run([0, 0, 0, 0], [1, 2, 3, 4], simd)
    assert math.isnan(m.cosine_similarity)
    assert opdiff.Note.MY_ZERO in m.notes


def test_zero_golden_element_contributes_zero_relative_error(simd: str) -> None:
    m = run([1, 2, 5, 4], [1, 2, 0, 4], simd)
    assert m.max_relative_error == 0.0
    assert m.accumulated_relative_error == 0.0
    assert m.max_absolute_error == 5.0 and m.max_absolute_error_index == 2


def test_nan_golden_element_contributes_zero_relative_error(simd: str) -> None:
    m = run([1, 2, 3, 4], [1, 2, np.nan, 4], simd)
    assert m.accumulated_relative_error == 0.0 and m.max_relative_error == 0.0
    assert m.y.nan == 1 and m.x.nan == 0


def test_nan_in_my_side_propagates(simd: str) -> None:
    m = run([1, np.nan, 3, 4], [1, 2, 3, 4], simd)
    assert math.isnan(m.cosine_similarity)
    assert math.isnan(m.max_absolute_error) and m.max_absolute_error_index == 1
    assert math.isnan(m.accumulated_relative_error) and math.isnan(m.mean_relative_error)
    assert math.isnan(m.kullback_leibler_divergence)
    assert m.x.nan == 1 and m.x.min == 1.0 and m.x.max == 4.0  # min/max skip NaN


def test_inf_in_my_side(simd: str) -> None:
    m = run([1, np.inf, 3, 4], [1, 2, 3, 4], simd)
    assert math.isnan(m.cosine_similarity)
    assert m.max_absolute_error == math.inf
    assert math.isnan(m.kullback_leibler_divergence)
    assert m.x.mean == math.inf and math.isnan(m.x.std)
    assert m.x.pos_inf == 1 and m.x.neg_inf == 0


def test_empty_tensors(simd: str) -> None:
    m = run([], [], simd)
    assert m.count == 0
    assert m.cosine_similarity == 1.0
    assert math.isnan(m.max_absolute_error) and math.isnan(m.max_relative_error)
    assert math.isnan(m.kullback_leibler_divergence)
    assert m.accumulated_relative_error == 0.0 and m.relative_euclidean_distance == 0.0
    assert math.isnan(m.mean_absolute_error) and math.isnan(m.root_mean_square_error)
    assert math.isnan(m.mean_relative_error)
    assert all(math.isnan(v) for v in m.standard_deviation)
    assert opdiff.Note.EMPTY in m.notes


@pytest.mark.parametrize("shape", [(), (1,), (1, 1)])
def test_scalar_shape_has_cosine_one(simd: str, shape) -> None:
    m = compute_metrics(np.full(shape, 5.0, np.float32), np.full(shape, -3.0, np.float32), simd=simd)
    assert m.cosine_similarity == 1.0
    assert opdiff.Note.SCALAR in m.notes


def test_negated_vector_has_cosine_minus_one(simd: str) -> None:
    y = np.linspace(-5, 7, 1000, dtype=np.float32)
    m = compute_metrics(-y, y, simd=simd)
    assert m.cosine_similarity == pytest.approx(-1.0, abs=1e-12)


def test_cosine_is_clamped_at_one(simd: str) -> None:
    y = np.random.default_rng(1).standard_normal(100_000).astype(np.float32)
    assert compute_metrics(y, y, simd=simd).cosine_similarity <= 1.0


def test_infinite_golden_uses_reference_relative_form(simd: str) -> None:
    # |x / inf - 1| = 1, not |x - inf| / inf = NaN
    m = run([3.0], [np.inf], simd)
    assert m.max_relative_error == 1.0


def test_allclose_fraction_uses_rtol_and_atol(simd: str) -> None:
    y = np.ones(1000, np.float32)
    x = y.copy()
    x[:250] += 0.01  # outside rtol=1e-3
    x[250:500] += 5e-4  # inside
    m = compute_metrics(x, y, simd=simd, rtol=1e-3, atol=1e-5)
    assert m.allclose_fraction == pytest.approx(0.75)

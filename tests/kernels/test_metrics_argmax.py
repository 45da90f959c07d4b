"""The flat index of the largest absolute and relative error is numpy's argmax (the first of equal
maxima) on every SIMD path and thread count, whichever block holds it: the kernels look a block's
maximum up once, at the end of a run, and exact-fallback blocks and tails may take it over."""

from __future__ import annotations

import numpy as np
import pytest

from opdiff.numerics.core_adapter import compute_metrics

pytestmark = pytest.mark.kernels

BLOCK = 4096  # the kernels' block (kKernelBlock)


def _relative(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    ay = np.abs(y64)
    return np.where(ay > 2.0**-52, np.abs(x64 - y64) / np.where(ay > 0, ay, 1), 0.0)


def _check(x: np.ndarray, y: np.ndarray, simd: str, threads: int) -> None:
    m = compute_metrics(x, y, simd=simd, threads=threads)
    assert m.max_absolute_error_index == int(np.argmax(np.abs(x.astype(np.float64) - y.astype(np.float64))))
    assert m.max_relative_error_index == int(np.argmax(_relative(x, y)))


def _base(n: int, dtype=np.float32) -> tuple:
    rng = np.random.default_rng(11)
    y = rng.uniform(1.0, 2.0, n).astype(np.float32)
    x = (y + rng.uniform(-0.01, 0.01, n)).astype(dtype)
    return x, y


@pytest.mark.parametrize("threads", [1, 2])
def test_equal_maxima_in_two_blocks_give_the_first(simd: str, threads: int) -> None:
    n = 70 * BLOCK + 7  # two 64K chunks and a tail
    x, y = _base(n)
    for at in (BLOCK + 10, 3 * BLOCK + 5, 40 * BLOCK + 1):  # the same error in three blocks, one per chunk
        x[at] = y[at] + 3.0
    _check(x, y, simd, threads)


def test_a_later_exact_block_takes_the_maximum_over(simd: str) -> None:
    n = 6 * BLOCK
    x, y = _base(n)
    x[BLOCK + 10] = y[BLOCK + 10] + 3.0
    # Block 4: a mean that dwarfs the spread sends it to the exact two-pass loop; its error is larger.
    y[4 * BLOCK:5 * BLOCK] = 3e7 + np.arange(BLOCK, dtype=np.float32) % 7
    x[4 * BLOCK:5 * BLOCK] = y[4 * BLOCK:5 * BLOCK]
    x[4 * BLOCK + 99] += 8.0
    _check(x, y, simd, 1)


def test_the_tail_takes_the_maximum_over(simd: str) -> None:
    n = 3 * BLOCK + 9
    x, y = _base(n)
    x[BLOCK + 3] = y[BLOCK + 3] + 3.0
    x[n - 2] = y[n - 2] + 5.0
    _check(x, y, simd, 1)


def test_staged_types_are_looked_up_after_their_staging_was_reused(simd: str) -> None:
    n = 5 * BLOCK
    rng = np.random.default_rng(12)
    y = rng.integers(1, 100, n).astype(np.float32)
    x = (y + rng.integers(-1, 2, n)).astype(np.int8)  # int8 is widened into a staging buffer
    x[2 * BLOCK + 17] = np.int8(y[2 * BLOCK + 17] + 20)
    _check(x, y, simd, 1)
    wide_x, wide_y = x.astype(np.float64), y.astype(np.float64)  # the float64 kernels
    wide_x[3 * BLOCK + 1] = wide_y[3 * BLOCK + 1] + 20
    _check(wide_x, wide_y, simd, 1)

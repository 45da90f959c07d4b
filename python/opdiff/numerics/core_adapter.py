"""`opdiff.metrics`: compare two arrays (numpy arrays or RawTensor bytes) element by element with every
metric in one pass, through the core."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence, Union

from opdiff.numerics.core import core_compute_metrics, tolerances
from opdiff.numerics.core_results import is_scalar_shape, metrics_from_core, resolve_algorithms
from opdiff.numerics.dtypes import RawTensor, as_core_operand
from opdiff.numerics.schema import KULLBACK_LEIBLER_DIVERGENCE
from opdiff.numerics.values import Metrics

if TYPE_CHECKING:
    import numpy as np


def metrics(
    a: Union[np.ndarray, RawTensor],
    b: Union[np.ndarray, RawTensor],
    *,
    algorithms: Optional[Sequence[Union[str, int]]] = None,
    rtol: Optional[float] = None,
    atol: Optional[float] = None,
    threads: Optional[int] = None,
) -> Metrics:
    """Compare ``a`` (my/compared) against ``b`` (golden) and return every metric.

    ``a`` and ``b`` are numpy arrays of any supported dtype (ml_dtypes arrays for bfloat16 and
    float8; complex arrays compare as interleaved real and imaginary parts) or
    :class:`opdiff.RawTensor` views of raw bytes (packed int4, HiFloat8). They must hold the same
    number of elements; shapes may differ. C-contiguous inputs are read in place, others are copied
    once. ``rtol`` and ``atol`` are AllClose's tolerances (None: the defaults, 1e-3 and 1e-5,
    docs/metrics.md). ``algorithms`` limits the reference metrics computed (only KullbackLeiblerDivergence
    costs a second pass; the others come from the same pass). ``threads`` defaults to every core.

    >>> import numpy as np, opdiff
    >>> golden = np.linspace(-1, 1, 1000, dtype=np.float32)
    >>> m = opdiff.metrics(golden.astype(np.float16), golden)
    >>> m.cosine_similarity > 0.9999, m.count
    (True, 1000)
    """
    return compute_metrics(a, b, algorithms=algorithms, rtol=rtol, atol=atol, threads=threads)


def compute_metrics(
    a: Union[np.ndarray, RawTensor],
    b: Union[np.ndarray, RawTensor],
    *,
    algorithms: Optional[Sequence[Union[str, int]]] = None,
    rtol: Optional[float] = None,
    atol: Optional[float] = None,
    threads: Optional[int] = None,
    simd: Optional[str] = None,
) -> Metrics:
    """:func:`metrics` with a choice of SIMD path (``simd="scalar"|"avx2"|"avx512"|"neon"``), for tests and benchmarks."""
    chosen = resolve_algorithms(algorithms)
    rtol, atol = tolerances(rtol, atol)
    if threads is not None and threads < 1:
        raise ValueError("threads must be at least 1")
    x = as_core_operand(a, "a")
    y = as_core_operand(b, "b")
    if x.components != y.components:
        raise ValueError(
            f"element counts differ: a has {x.components} and b has {y.components} values to compare"
            " (complex elements count as two)"
        )
    result = core_compute_metrics(
        x.buffer,
        x.dtype,
        x.count,
        y.buffer,
        y.dtype,
        y.count,
        rtol=rtol,
        atol=atol,
        kl=KULLBACK_LEIBLER_DIVERGENCE in chosen,
        scalar_shape=is_scalar_shape(x.shape),
        threads=threads or 0,
        simd=simd,
    )
    return metrics_from_core(result)


__all__ = ["compute_metrics", "metrics"]

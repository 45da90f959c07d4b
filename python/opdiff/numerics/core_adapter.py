"""`opdiff.metrics`: compare two arrays element by element with every metric in one pass, through the
core; and the core's typed results turned into :class:`opdiff.Metrics`."""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

import opdiff._core as _core
from opdiff.numerics.dtypes import RawTensor, as_core_operand
from opdiff.numerics.schema import ALGORITHMS, KULLBACK_LEIBLER_DIVERGENCE, SIDE_FIELDS, VALUE_FIELDS
from opdiff.numerics.values import NOTE_BITS, Metrics, Note, SideStats


def is_scalar_shape(shape: Sequence[int]) -> bool:
    """The reference's "scalar" shape type: the dims sum to their count ([], [1], [1, 1], also
    [2, 0]); such a tensor gets cosine 1."""
    return sum(shape) == len(shape)


def resolve_algorithms(algorithms: Optional[Sequence[Union[str, int]]]) -> Tuple[str, ...]:
    """The metric names `algorithms` selects (names or ``-alg`` indices); every one for None."""
    if algorithms is None:
        return ALGORITHMS
    chosen = []
    for item in algorithms:
        if isinstance(item, int) or (isinstance(item, str) and item.isdigit()):
            index = int(item)
            if not 0 <= index < len(ALGORITHMS):
                raise ValueError(f"algorithm index {index} is out of range 0..{len(ALGORITHMS) - 1}")
            chosen.append(ALGORITHMS[index])
        elif item in ALGORITHMS:
            chosen.append(item)
        else:
            raise ValueError(f"unknown algorithm {item!r}; known: {', '.join(ALGORITHMS)}")
    if not chosen:
        raise ValueError("no algorithm selected")
    return tuple(chosen)


def metrics(
    a: Union[np.ndarray, RawTensor],
    b: Union[np.ndarray, RawTensor],
    *,
    algorithms: Optional[Sequence[Union[str, int]]] = None,
    rtol: float = 1e-3,
    atol: float = 1e-5,
    threads: Optional[int] = None,
) -> Metrics:
    """Compare ``a`` (my/compared) against ``b`` (golden) and return every metric.

    ``a`` and ``b`` are numpy arrays of any supported dtype (ml_dtypes arrays for bfloat16 and
    float8; complex arrays compare as interleaved real and imaginary parts) or
    :class:`opdiff.RawTensor` views of raw bytes (packed int4, HiFloat8). They must hold the same
    number of elements; shapes may differ. C-contiguous inputs are read in place, others are copied
    once. ``algorithms`` limits the reference metrics computed (only KullbackLeiblerDivergence
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
    rtol: float = 1e-3,
    atol: float = 1e-5,
    threads: Optional[int] = None,
    simd: Optional[str] = None,
) -> Metrics:
    """:func:`metrics` with a choice of SIMD path (``simd="scalar"|"avx2"|"avx512"|"neon"``), for tests and benchmarks."""
    chosen = resolve_algorithms(algorithms)
    if not (rtol >= 0 and atol >= 0):
        raise ValueError("rtol and atol must be non-negative numbers")
    if threads is not None and threads < 1:
        raise ValueError("threads must be at least 1")
    x = as_core_operand(a, "a")
    y = as_core_operand(b, "b")
    if x.components != y.components:
        raise ValueError(
            f"element counts differ: a has {x.components} and b has {y.components} values to compare"
            " (complex elements count as two)"
        )
    result = _core.compute_metrics(
        x.buffer,
        x.dtype,
        x.count,
        y.buffer,
        y.dtype,
        y.count,
        rtol=float(rtol),
        atol=float(atol),
        kl=KULLBACK_LEIBLER_DIVERGENCE in chosen,
        scalar_shape=is_scalar_shape(x.shape),
        threads=threads or 0,
        simd=simd,
    )
    return metrics_from_core(result)


def notes_from_bits(bits: int) -> Tuple[Note, ...]:
    """The notes of the core's MetricNote bits, in bit order."""
    return tuple(note for bit, note in enumerate(NOTE_BITS) if bits & (1 << bit)) if bits else ()


# The schema's fields read in one call each (thousands of pairs a run); SideStats takes them
# positionally, in the schema's order (tests/report/test_metric_schema.py checks the dataclasses agree).
_side_values = attrgetter(*SIDE_FIELDS)
_metric_values = attrgetter(*VALUE_FIELDS)


def side_from_core(side: _core.SideStats) -> SideStats:
    return SideStats(*_side_values(side))


def metrics_from_core(result: _core.MetricsResult) -> Metrics:
    """The Metrics of one pair from the core's result: every field the schema names."""
    values: Dict[str, Any] = dict(zip(VALUE_FIELDS, _metric_values(result)))
    return Metrics(count=result.count, x=side_from_core(result.x), y=side_from_core(result.y), **values,
                   notes=notes_from_bits(result.note_bits))


def simd_info() -> Dict[str, Any]:
    """Which SIMD kernel path is in use (``active``), which this CPU supports, and why.

    ``OPDIFF_SIMD=scalar|avx2|avx512|neon`` in the environment forces a path at import time.

    >>> import opdiff
    >>> opdiff.simd_info()["active"] in ("scalar", "avx2", "avx512", "neon")
    True
    """
    return dict(_core.simd_info())


__all__ = ["compute_metrics", "is_scalar_shape", "metrics", "metrics_from_core", "resolve_algorithms", "side_from_core",
           "simd_info"]

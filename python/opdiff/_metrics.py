"""`opdiff.metrics`: compare two arrays element by element with every metric in one pass."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

import opdiff._core as _core
from opdiff._dtypes import RawTensor, as_core_operand
from opdiff._frozen import build_frozen

if TYPE_CHECKING:
    from rich.console import Group

ALGORITHMS: Tuple[str, ...] = (
    "CosineSimilarity",
    "MaxAbsoluteError",
    "AccumulatedRelativeError",
    "RelativeEuclideanDistance",
    "KullbackLeiblerDivergence",
    "StandardDeviation",
    "MeanAbsoluteError",
    "RootMeanSquareError",
    "MaxRelativeError",
    "MeanRelativeError",
)
"""The reference tool's built-in algorithms, in its order (indices 0-9 of ``-alg``)."""


class Note(str, Enum):
    """Why a metric took a special value; the text is the message a report shows."""

    SCALAR = "This tensor is scalar."
    BOTH_ZERO = "Both sides are all zero."
    MY_ZERO = "Cannot compare by Cosine Similarity. All the data is zero in my output."
    GOLDEN_ZERO = "Cannot compare by Cosine Similarity. All the data is zero in the ground truth."
    EMPTY = "The tensors are empty."
    KL_GOLDEN_ZERO = "The ground truth distribution contains 0: KullbackLeiblerDivergence is inf."
    KL_SKIPPED = "KullbackLeiblerDivergence was not requested."


# Bit i of the core's `notes` field is _NOTE_BITS[i] (cpp/include/opdiff/metrics.hpp, MetricNote).
_NOTE_BITS = (Note.SCALAR, Note.BOTH_ZERO, Note.MY_ZERO, Note.GOLDEN_ZERO, Note.EMPTY, Note.KL_GOLDEN_ZERO, Note.KL_SKIPPED)


@dataclass(frozen=True)
class SideStats:
    """Statistics of one side. ``min``/``max`` skip NaN; ``mean``/``std`` propagate NaN and Inf."""

    min: float
    max: float
    mean: float
    std: float
    nan: int
    pos_inf: int
    neg_inf: int


@dataclass(frozen=True)
class Metrics:
    """Every metric of one tensor pair (``x`` = compared/"my", ``y`` = golden).

    The ten reference metrics follow msaccucmp's definitions, quirks included:

    * ``cosine_similarity`` is 1.0 for a scalar-shaped tensor (every dim 1, or no dims) and when both
      sides are all zero, NaN ("not computed") when exactly one side is all zero, and clamped above
      at 1.0.
    * relative errors use ``t = |x - y| / |y|`` where ``|y| > 2**-52`` and ``t = 0`` elsewhere
      (a zero or NaN golden element contributes 0); ``mean_relative_error`` divides by the full count.
    * ``relative_euclidean_distance`` is 0 when the golden side is all zero.
    * ``kullback_leibler_divergence`` normalises each side to [0, 1] by its min/max, floors at
      float32 eps, normalises to sum 1 and computes KL(my || golden); NaN when either side has NaN/Inf.
    * ``max_absolute_error``, ``max_relative_error`` and KL are NaN for empty inputs.

    All sums are accumulated in double precision. Beside them: per-side statistics, the flat index
    of the largest absolute and relative error, SQNR in dB, the fraction of elements within
    ``atol + rtol * |y|`` and ``norm_ratio_error`` = ``| ‖x‖₂ / ‖y‖₂ − 1 |`` (NormRatioError: the
    magnitude error that the cosine cannot see; 0 when both sides are all zero, +inf when only the
    golden side is).

    A notebook shows a Metrics as an HTML table (``_repr_html_``) and ``rich.print(m)`` as a table
    (``__rich__``): the metrics, the per-side statistics and the notes.

    >>> import numpy as np, opdiff
    >>> m = opdiff.metrics(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.5]))
    >>> round(m.max_absolute_error, 3), m.max_absolute_error_index
    (0.5, 2)
    >>> "MaxAbsoluteError</th><td>0.5 (at index 2)</td>" in m._repr_html_()
    True
    >>> from rich.console import Console
    >>> Console(width=80, color_system=None).print(m)
    opdiff metrics (my vs golden)
    ┌───────────────────────────┬───────────────────────┐
    │ elements                  │                     3 │
    │ CosineSimilarity          │              0.997409 │
    │ MaxAbsoluteError          │      0.5 (at index 2) │
    │ AccumulatedRelativeError  │              0.142857 │
    │ RelativeEuclideanDistance │              0.120386 │
    │ KullbackLeiblerDivergence │            0.00538831 │
    │ MeanAbsoluteError         │              0.166667 │
    │ RootMeanSquareError       │              0.288675 │
    │ MaxRelativeError          │ 0.142857 (at index 2) │
    │ MeanRelativeError         │              0.047619 │
    │ SQNR (dB)                 │               18.3885 │
    │ allclose fraction         │              0.666667 │
    │ NormRatioError            │             0.0991148 │
    └───────────────────────────┴───────────────────────┘
    ┏━━━━━━━━┳━━━━━┳━━━━━┳━━━━━━━━━┳━━━━━━━━━━┳━━━━━┳━━━━━━┳━━━━━━┓
    ┃ side   ┃ min ┃ max ┃    mean ┃      std ┃ NaN ┃ +Inf ┃ -Inf ┃
    ┡━━━━━━━━╇━━━━━╇━━━━━╇━━━━━━━━━╇━━━━━━━━━━╇━━━━━╇━━━━━━╇━━━━━━┩
    │ my     │   1 │   3 │       2 │ 0.816497 │   0 │    0 │    0 │
    │ golden │   1 │ 3.5 │ 2.16667 │   1.0274 │   0 │    0 │    0 │
    └────────┴─────┴─────┴─────────┴──────────┴─────┴──────┴──────┘
    """

    count: int
    x: SideStats
    y: SideStats
    cosine_similarity: float
    max_absolute_error: float
    accumulated_relative_error: float
    relative_euclidean_distance: float
    kullback_leibler_divergence: float
    mean_absolute_error: float
    root_mean_square_error: float
    max_relative_error: float
    mean_relative_error: float
    max_absolute_error_index: int
    max_relative_error_index: int
    sqnr_db: float
    allclose_fraction: float
    norm_ratio_error: float
    notes: Tuple[Note, ...] = ()

    @property
    def standard_deviation(self) -> Tuple[float, float, float, float]:
        """(mean, std) of my side then of the golden side, as the reference's StandardDeviation."""
        return (self.x.mean, self.x.std, self.y.mean, self.y.std)

    def _repr_html_(self) -> str:
        """Jupyter's rich display: the summary as an HTML table (opdiff.report.metrics_view)."""
        from opdiff.report.metrics_view import metrics_html

        return metrics_html(self)

    def __rich__(self) -> Group:
        """What ``rich.print(metrics)`` shows: the summary as tables."""
        from opdiff.report.metrics_view import metrics_renderable

        return metrics_renderable(self)

    def as_dict(self) -> Dict[str, Any]:
        """Plain nested dict of every field (JSON-friendly apart from NaN/Inf floats)."""
        return dataclasses.asdict(self)

    def reference_values(self) -> Dict[str, float | Tuple[float, float, float, float]]:
        """The ten reference metrics by their msaccucmp names."""
        return {
            "CosineSimilarity": self.cosine_similarity,
            "MaxAbsoluteError": self.max_absolute_error,
            "AccumulatedRelativeError": self.accumulated_relative_error,
            "RelativeEuclideanDistance": self.relative_euclidean_distance,
            "KullbackLeiblerDivergence": self.kullback_leibler_divergence,
            "StandardDeviation": self.standard_deviation,
            "MeanAbsoluteError": self.mean_absolute_error,
            "RootMeanSquareError": self.root_mean_square_error,
            "MaxRelativeError": self.max_relative_error,
            "MeanRelativeError": self.mean_relative_error,
        }


def is_scalar_shape(shape: Sequence[int]) -> bool:
    """The reference's "scalar" shape type: the dims sum to their count ([], [1], [1, 1], also
    [2, 0]); such a tensor gets cosine 1."""
    return sum(shape) == len(shape)


def _resolve_algorithms(algorithms: Optional[Sequence[Union[str, int]]]) -> Tuple[str, ...]:
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
    chosen = _resolve_algorithms(algorithms)
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
    raw = _core.compute_metrics(
        x.buffer,
        x.dtype,
        x.count,
        y.buffer,
        y.dtype,
        y.count,
        rtol=float(rtol),
        atol=float(atol),
        kl="KullbackLeiblerDivergence" in chosen,
        scalar_shape=is_scalar_shape(x.shape),
        threads=threads or 0,
        simd=simd,
    )
    return metrics_from_core(raw)


def metrics_from_core(raw: Dict[str, Any]) -> Metrics:
    """A Metrics from the dict the core's compare functions return (every field but ``notes``, which
    comes as bits)."""
    fields = dict(raw)
    bits = fields.pop("notes")
    fields["notes"] = tuple(note for bit, note in enumerate(_NOTE_BITS) if bits & (1 << bit)) if bits else ()
    fields["x"] = build_frozen(SideStats, dict(raw["x"]))
    fields["y"] = build_frozen(SideStats, dict(raw["y"]))
    return build_frozen(Metrics, fields)



def simd_info() -> Dict[str, Any]:
    """Which SIMD kernel path is in use (``active``), which this CPU supports, and why.

    ``OPDIFF_SIMD=scalar|avx2|avx512|neon`` in the environment forces a path at import time.

    >>> import opdiff
    >>> opdiff.simd_info()["active"] in ("scalar", "avx2", "avx512", "neon")
    True
    """
    return dict(_core.simd_info())


__all__ = ["ALGORITHMS", "Metrics", "Note", "SideStats", "metrics", "simd_info"]


"""The result of comparing two tensors: :class:`Metrics` (every metric of a pair), the statistics of
each side (:class:`SideStats`) and why a metric took a special value (:class:`Note`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Dict, Tuple

from opdiff.numerics.schema import METRICS

if TYPE_CHECKING:
    from rich.console import Group


class Note(str, Enum):
    """Why a metric took a special value; the text is the message a report shows."""

    SCALAR = "This tensor is scalar."
    BOTH_ZERO = "Both sides are all zero."
    MY_ZERO = "Cannot compare by Cosine Similarity. All the data is zero in my output."
    GOLDEN_ZERO = "Cannot compare by Cosine Similarity. All the data is zero in the ground truth."
    EMPTY = "The tensors are empty."
    KL_GOLDEN_ZERO = "The ground truth distribution contains 0: KullbackLeiblerDivergence is inf."
    KL_SKIPPED = "KullbackLeiblerDivergence was not requested."


# (name, Metrics field) of the reference's metrics; StandardDeviation's field is None (four values).
_REFERENCE_FIELDS = tuple((spec.name, spec.field) for spec in METRICS if spec.reference)

# Bit i of the core's `note_bits` is NOTE_BITS[i] (cpp/include/opdiff/metrics.hpp, MetricNote).
NOTE_BITS: Tuple[Note, ...] = (Note.SCALAR, Note.BOTH_ZERO, Note.MY_ZERO, Note.GOLDEN_ZERO, Note.EMPTY, Note.KL_GOLDEN_ZERO,
                               Note.KL_SKIPPED)


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
        """Jupyter's rich display: the summary as an HTML table (opdiff.numerics.view)."""
        from opdiff.numerics.view import metrics_html

        return metrics_html(self)

    def __rich__(self) -> Group:
        """What ``rich.print(metrics)`` shows: the summary as tables."""
        from opdiff.numerics.view import metrics_renderable

        return metrics_renderable(self)

    def as_dict(self) -> Dict[str, Any]:
        """Plain nested dict of every field (JSON-friendly apart from NaN/Inf floats)."""
        return dataclasses.asdict(self)

    def reference_values(self) -> Dict[str, float | Tuple[float, float, float, float]]:
        """The ten reference metrics by their msaccucmp names."""
        return {name: self.standard_deviation if field is None else getattr(self, field) for name, field in _REFERENCE_FIELDS}


__all__ = ["NOTE_BITS", "Metrics", "Note", "SideStats"]

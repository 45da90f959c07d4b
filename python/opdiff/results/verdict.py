"""Pass or fail for each compared tensor: the one verdict that every report, the exit code and the
advisor use.

Two kinds of verdict:

* :class:`PrecisionVerdict`, the default: a tensor passes when its cosine similarity (direction) is
  at least ``c`` and its NormRatioError ``| ‖x‖ / ‖y‖ − 1 |`` (magnitude) is at most ``r``, with
  ``(c, r)`` taken from the precision of the dtype pair (:data:`PRECISION_ROWS`, from
  opdiff.numerics.precision, the rounding model the statistics verdict shares); differences that
  vanish at the scale of the network pass (:func:`network_scale`). docs/metrics.md derives the rows.
* :class:`ThresholdVerdict`: fixed limits on named metrics, as ``--fail-under METRIC=VALUE`` gives
  them; :data:`REFERENCE_THRESHOLDS` (cosine >= 0.99) is the reference tool's advisor rule,
  ``--thresholds reference``.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

# The precision rows live with the rounding model they come from (numerics/precision.py).
from opdiff.numerics.precision import (
    FP16_VS_FP32,
    PRECISION_ROWS,
    PrecisionRow,
    precision_row,
)
from opdiff.numerics.schema import HIGHER_IS_BETTER, METRIC_FIELDS, NORM_RATIO_ERROR
from opdiff.numerics.values import Metrics
from opdiff.results.limit_text import parse_limit
from opdiff.results.rows import CompareRow


@dataclass(frozen=True)
class Threshold:
    """A pass/fail limit on one metric: CosineSimilarity fails below `value`, error metrics above.

    >>> Threshold.parse("NormRatioError=0.01")
    Threshold(metric='NormRatioError', value=0.01)
    """

    metric: str
    value: float

    def __post_init__(self) -> None:
        if self.metric not in METRIC_FIELDS:
            raise ValueError(f"no threshold possible on {self.metric!r}; use one of {', '.join(METRIC_FIELDS)}")

    def violated_by(self, row: CompareRow) -> bool:
        if row.metrics is None:
            return False
        value = getattr(row.metrics, METRIC_FIELDS[self.metric])
        if math.isnan(value):  # NaN data, or a cosine with one all-zero side: broken either way
            return True
        return bool(value < self.value if self.metric in HIGHER_IS_BETTER else value > self.value)

    @property
    def text(self) -> str:
        """``CosineSimilarity >= 0.99``: the limit as the reports print it."""
        return f"{self.metric} {'>=' if self.metric in HIGHER_IS_BETTER else '<='} {self.value:g}"

    @classmethod
    def parse(cls, text: str) -> Threshold:
        """From ``METRIC=VALUE`` (``--fail-under``)."""
        return cls(*parse_limit(text, "CosineSimilarity=0.99"))


REFERENCE_THRESHOLDS: Tuple[Threshold, ...] = (Threshold("CosineSimilarity", 0.99),)
"""The reference tool's advisor rule: cosine >= 0.99, blind to magnitude (``--thresholds reference``)."""

# --- the default verdict's precision rows -------------------------------------------------------------

# Differences below this fraction of the network's median tensor spread pass whatever their cosine:
# at that scale both sides are zero for every purpose (e.g. a branch of order 1e-41 beside tensors of
# order 1, flushed to 0 by fp16).
NEGLIGIBLE_FRACTION = 1e-5


def network_scale(rows: Iterable[CompareRow]) -> float:
    """The network's typical tensor spread: the median golden standard deviation of the compared
    tensors (0 when none has a finite one)."""
    spreads = [row.metrics.y.std for row in rows if row.metrics is not None and math.isfinite(row.metrics.y.std)]
    return statistics.median(spreads) if spreads else 0.0


def is_negligible(metrics: Metrics, scale: float) -> bool:
    """Every element difference is below NEGLIGIBLE_FRACTION of the network's scale (NaN is never negligible)."""
    return bool(metrics.max_absolute_error <= NEGLIGIBLE_FRACTION * scale)


# --- the verdicts ----------------------------------------------------------------------------------------


class Verdict:
    """Decides pass or fail for a row; names its limits for the reports."""

    name: str = ""

    def fails(self, row: CompareRow) -> bool:
        raise NotImplementedError

    def limits_text(self, rows: Sequence[CompareRow] = ()) -> str:
        """What fails, for the console (the limits that apply to `rows`, where that depends on them)."""
        raise NotImplementedError

    def as_json(self) -> List[Dict[str, object]]:
        """The limits as the JSON report lists them (``thresholds``)."""
        raise NotImplementedError


@dataclass(frozen=True)
class ThresholdVerdict(Verdict):
    """Fixed limits: a row fails when it violates any of them (``--fail-under``, ``--thresholds reference``)."""

    thresholds: Tuple[Threshold, ...]
    name: str = "fail-under"

    def fails(self, row: CompareRow) -> bool:
        return any(t.violated_by(row) for t in self.thresholds)

    def limits_text(self, rows: Sequence[CompareRow] = ()) -> str:
        return ", ".join(t.text for t in self.thresholds)

    def as_json(self) -> List[Dict[str, object]]:
        return [{"metric": t.metric, "value": t.value, "fails_when": "below" if t.metric in HIGHER_IS_BETTER else "above",
                 "applies_to": "every tensor"} for t in self.thresholds]


@dataclass(frozen=True)
class PrecisionVerdict(Verdict):
    """The default verdict: cosine >= c and NormRatioError <= r of the tensor's precision row, unless
    its differences are negligible at the network's scale.

    >>> import numpy as np, opdiff
    >>> y = np.random.default_rng(0).standard_normal(4096)
    >>> from opdiff.results.rows import TensorId
    >>> row = CompareRow(0, "Conv2D", "c", "c", TensorId("c", "output", 0), my_dtype="float16", golden_dtype="float32",
    ...                  metrics=opdiff.metrics(1.6 * y.astype(np.float16), y))
    >>> verdict = PrecisionVerdict(scale=1.0)
    >>> verdict.fails(row), verdict.row_of(row).name   # cosine 1, but 60% too large
    (True, 'fp16 vs fp32')
    """

    scale: float
    npu_vs_npu: bool = False
    quantized: bool = False
    name: str = "default"

    @classmethod
    def for_rows(cls, rows: Sequence[CompareRow], *, npu_vs_npu: bool, quantized: bool) -> PrecisionVerdict:
        return cls(network_scale(rows), npu_vs_npu, quantized)

    def row_of(self, row: CompareRow) -> PrecisionRow:
        return precision_row(row.my_dtype, row.golden_dtype, npu_vs_npu=self.npu_vs_npu, quantized=self.quantized)

    def negligible(self, row: CompareRow) -> bool:
        return row.metrics is not None and is_negligible(row.metrics, self.scale)

    def fails(self, row: CompareRow) -> bool:
        limits = self.row_of(row)
        return self._exceeds(row.metrics, limits.cosine, limits.norm_ratio)

    def fails_locally(self, row: CompareRow) -> bool:
        """Whether the row's own error (``row.local``, from --isolate) exceeds the local limits of
        its precision row: cosine >= local_cosine and NormRatioError <= local_norm_ratio, unless the
        difference is negligible at the network's scale. False when the op was not isolated."""
        limits = self.row_of(row)
        return self._exceeds(row.local.metrics if row.local is not None else None, limits.local_cosine, limits.local_norm_ratio)

    def _exceeds(self, m: Optional[Metrics], cosine_limit: float, norm_limit: float) -> bool:
        """Whether `m` fails a cosine and a NormRatioError limit (NaN fails), unless its difference is
        negligible at the network's scale; False without metrics."""
        if m is None or is_negligible(m, self.scale):
            return False
        cosine, norm = m.cosine_similarity, m.norm_ratio_error
        if math.isnan(cosine) or math.isnan(norm):
            return True
        return bool(cosine < cosine_limit or norm > norm_limit)

    def rows_in_use(self, rows: Iterable[CompareRow]) -> List[PrecisionRow]:
        """The precision rows the compared tensors fall under, in table order."""
        used = {self.row_of(row).name for row in rows if row.compared}
        return [row for row in PRECISION_ROWS if row.name in used]

    def limits_text(self, rows: Sequence[CompareRow] = ()) -> str:
        used = self.rows_in_use(rows) or [FP16_VS_FP32]
        limits = "; ".join(f"{row.name}: CosineSimilarity >= {row.cosine:.6g}, {NORM_RATIO_ERROR} <= {row.norm_ratio:.3g}"
                           for row in used)
        return f"{limits}; differences under {NEGLIGIBLE_FRACTION * self.scale:.3g} pass"

    def as_json(self) -> List[Dict[str, object]]:
        out: List[Dict[str, object]] = []
        for row in PRECISION_ROWS:
            for metric, value, when in (("CosineSimilarity", row.cosine, "below"), (NORM_RATIO_ERROR, row.norm_ratio, "above")):
                out.append({"metric": metric, "value": value, "fails_when": when, "applies_to": row.name})
        out.append({"metric": "MaxAbsoluteError", "value": NEGLIGIBLE_FRACTION * self.scale, "fails_when": "never below",
                    "applies_to": "every tensor (negligible at the network's scale)"})
        return out


VerdictLike = Union[Verdict, Sequence[Threshold], None]


def as_verdict(value: Union[Verdict, Sequence[Threshold]]) -> Verdict:
    """A Verdict as it is; a sequence of thresholds as a ThresholdVerdict (the older API)."""
    if isinstance(value, Verdict):
        return value
    return ThresholdVerdict(tuple(value))


__all__ = [
    "REFERENCE_THRESHOLDS",
    "PrecisionVerdict",
    "Threshold",
    "ThresholdVerdict",
    "Verdict",
    "VerdictLike",
    "as_verdict",
    "is_negligible",
    "network_scale",
]

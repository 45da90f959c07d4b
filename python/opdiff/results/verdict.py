"""Pass or fail for each compared tensor: the one verdict that every report, the exit code and the
advisor use.

Two kinds of verdict:

* :class:`PrecisionVerdict`, the default: a tensor passes when its cosine similarity (direction) is
  at least ``c`` and its NormRatioError ``| ‖x‖ / ‖y‖ − 1 |`` (magnitude) is at most ``r``, with
  ``(c, r)`` taken from the precision of the dtype pair (:data:`PRECISION_ROWS`); differences that
  vanish at the scale of the network pass (:func:`network_scale`). docs/metrics.md derives the rows.
* :class:`ThresholdVerdict`: fixed limits on named metrics, as ``--fail-under METRIC=VALUE`` gives
  them; :data:`REFERENCE_THRESHOLDS` (cosine >= 0.99) is the reference tool's advisor rule,
  ``--thresholds reference``.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

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

# How many independent roundings a tensor deep in a network carries (its ops, their weights and
# activations along the path that feeds it): errors of independent roundings add in quadrature, so
# 256 of them give 16 single-rounding errors. The magnitude (norm) of a tensor moves far less than
# its elements: unbiased rounding errors change it only at second order, so its budget is 64
# roundings' worth, half the cosine's in relative error; that keeps a wrong scale of 10% visible even
# in int8. docs/metrics.md derives the table from these two numbers and each format's rounding error.
COSINE_ROUNDINGS = 256
NORM_ROUNDINGS = 64
# One op re-run alone on the device's own inputs (--isolate) carries only its own roundings: its
# weights', its accumulation's, its output's, those of the ops fused into it, and of intermediates
# larger than its output (an fp16 Softmax rounds x - max(x), whose error the exponential turns into
# relative error of the probabilities). The cosine's budget is half the end-to-end roundings (1/sqrt(2)
# of its relative error). The norm moves under unbiased roundings only at second order: what moves
# it is biased rounding, that of a long reduction accumulated in the device's format (a Softmax's or
# a mean's sum over a thousand elements), which one op can hold as much of as a whole path; so the
# norm's budget stays the end-to-end one. A fault (a quarter of a weight's channels x1.5, a 25%
# relative error) moves one op's output far beyond both.
LOCAL_COSINE_ROUNDINGS = 128
LOCAL_NORM_ROUNDINGS = NORM_ROUNDINGS
# The calibrated int8 step relative to a tensor's RMS: peak / 127 with a peak of 4 RMS (a calibrated
# range clips the rare outliers beyond it).
INT8_CREST_FACTOR = 4.0
# Differences below this fraction of the network's median tensor spread pass whatever their cosine:
# at that scale both sides are zero for every purpose (e.g. a branch of order 1e-41 beside tensors of
# order 1, flushed to 0 by fp16).
NEGLIGIBLE_FRACTION = 1e-5


@dataclass(frozen=True)
class PrecisionRow:
    """One documented row of the default verdict: the dtype pairs it covers and its limits."""

    name: str
    single_rounding: float  # RMS relative error of one rounding (quantisation) to this precision

    @property
    def cosine(self) -> float:
        """c = sqrt(1 - rho_c^2): the smallest cosine of an error of relative norm rho_c."""
        rho = math.sqrt(COSINE_ROUNDINGS) * self.single_rounding
        return math.sqrt(1.0 - rho * rho)

    @property
    def norm_ratio(self) -> float:
        """r = rho_r: | ||x|| / ||y|| - 1 | <= ||x - y|| / ||y|| (triangle inequality)."""
        return math.sqrt(NORM_ROUNDINGS) * self.single_rounding

    @property
    def local_cosine(self) -> float:
        """The cosine limit of one op's own error (LOCAL_COSINE_ROUNDINGS roundings)."""
        rho = math.sqrt(LOCAL_COSINE_ROUNDINGS) * self.single_rounding
        return math.sqrt(1.0 - rho * rho)

    @property
    def local_norm_ratio(self) -> float:
        """The NormRatioError limit of one op's own error (LOCAL_NORM_ROUNDINGS roundings)."""
        return math.sqrt(LOCAL_NORM_ROUNDINGS) * self.single_rounding

    def as_dict(self) -> Dict[str, object]:
        return {"dtypes": self.name, "CosineSimilarity": self.cosine, NORM_RATIO_ERROR: self.norm_ratio}


def _float_rounding(mantissa_bits: int) -> float:
    """Round to nearest with unit roundoff u = 2^-(p) leaves a relative error uniform in [-u, u]: RMS u/sqrt(3)."""
    return 2.0 ** -mantissa_bits / math.sqrt(3.0)


FP16_VS_FP32 = PrecisionRow("fp16 vs fp32", _float_rounding(11))
BF16_VS_FP32 = PrecisionRow("bf16 vs fp32", _float_rounding(8))
INT8_VS_FLOAT = PrecisionRow("int8-quantised vs float", INT8_CREST_FACTOR / (127 * math.sqrt(12.0)))
# Two device runs in one format: both sides carry their own roundings, which add in quadrature.
FP16_NPU_VS_NPU = PrecisionRow("equal dtypes NPU vs NPU (fp16, fp32)", math.sqrt(2.0) * _float_rounding(11))
BF16_NPU_VS_NPU = PrecisionRow("equal dtypes NPU vs NPU (bf16)", math.sqrt(2.0) * _float_rounding(8))
FP8_VS_FLOAT = PrecisionRow("fp8 / hifloat8 vs float", _float_rounding(4))

PRECISION_ROWS: Tuple[PrecisionRow, ...] = (FP16_VS_FP32, BF16_VS_FP32, INT8_VS_FLOAT, FP16_NPU_VS_NPU, BF16_NPU_VS_NPU,
                                            FP8_VS_FLOAT)

# The precision class of a dtype as it is computed on the device. float32 (and float64) tensors take
# the fp16 rows: ATC's default precision modes (force_fp16, allow_fp32_to_fp16, HF32 on the Cube
# units) compute them with an 11-bit significand; integer and boolean tensors take the finest row.
_DTYPE_CLASS = {
    "float16": "fp16", "DT_FLOAT16": "fp16", "float32": "fp16", "DT_FLOAT": "fp16", "float64": "fp16",
    "DT_DOUBLE": "fp16", "bfloat16": "bf16", "DT_BF16": "bf16",
    "float8_e4m3fn": "fp8", "float8_e5m2": "fp8", "DT_FLOAT8_E4M3FN": "fp8", "DT_FLOAT8_E5M2": "fp8",
    "DT_HIFLOAT8": "fp8",
}
_COARSENESS = {"fp16": 0, "bf16": 1, "fp8": 2}


@lru_cache(maxsize=256)  # asked for every row; a comparison has a handful of dtype pairs
def precision_row(my_dtype: Optional[str], golden_dtype: Optional[str], *, npu_vs_npu: bool, quantized: bool) -> PrecisionRow:
    """The row of the default verdict that a tensor pair falls under: the coarser side decides.

    >>> precision_row("float16", "float32", npu_vs_npu=False, quantized=False).name
    'fp16 vs fp32'
    >>> precision_row("bfloat16", "bfloat16", npu_vs_npu=True, quantized=False).name
    'equal dtypes NPU vs NPU (bf16)'
    >>> precision_row("float16", "float32", npu_vs_npu=False, quantized=True).name
    'int8-quantised vs float'
    """
    classes = [_DTYPE_CLASS.get(dtype or "", "fp16") for dtype in (my_dtype, golden_dtype)]
    coarsest = max(classes, key=_COARSENESS.__getitem__)
    if coarsest == "fp8":
        return FP8_VS_FLOAT
    if quantized:
        return INT8_VS_FLOAT
    if npu_vs_npu and my_dtype == golden_dtype:
        return BF16_NPU_VS_NPU if coarsest == "bf16" else FP16_NPU_VS_NPU
    return BF16_VS_FP32 if coarsest == "bf16" else FP16_VS_FP32


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
        m = row.metrics
        if m is None or is_negligible(m, self.scale):
            return False
        limits = self.row_of(row)
        cosine, norm = m.cosine_similarity, m.norm_ratio_error
        if math.isnan(cosine) or math.isnan(norm):
            return True
        return bool(cosine < limits.cosine or norm > limits.norm_ratio)

    def fails_locally(self, row: CompareRow) -> bool:
        """Whether the row's own error (``row.local``, from --isolate) exceeds the local limits of
        its precision row: cosine >= local_cosine and NormRatioError <= local_norm_ratio, unless the
        difference is negligible at the network's scale. False when the op was not isolated."""
        m = row.local.metrics if row.local is not None else None
        if m is None or is_negligible(m, self.scale):
            return False
        limits = self.row_of(row)
        cosine, norm = m.cosine_similarity, m.norm_ratio_error
        if math.isnan(cosine) or math.isnan(norm):
            return True
        return bool(cosine < limits.local_cosine or norm > limits.local_norm_ratio)

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
    "HIGHER_IS_BETTER",
    "LOCAL_COSINE_ROUNDINGS",
    "LOCAL_NORM_ROUNDINGS",
    "METRIC_FIELDS",
    "NORM_RATIO_ERROR",
    "PRECISION_ROWS",
    "REFERENCE_THRESHOLDS",
    "PrecisionRow",
    "PrecisionVerdict",
    "Threshold",
    "ThresholdVerdict",
    "Verdict",
    "VerdictLike",
    "as_verdict",
    "is_negligible",
    "network_scale",
    "precision_row",
]

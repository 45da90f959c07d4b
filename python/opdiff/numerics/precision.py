"""The rounding model behind both default verdicts: how far a clean device run's tensors may be from
the golden's, as a precision row per dtype pair (docs/metrics.md derives the rows).

A row gives the tensor verdict's limits, cosine >= ``c`` and NormRatioError <= ``r``, and from them
:attr:`PrecisionRow.error_norm`, the largest relative error norm ``||x - y|| / ||y||`` a tensor that
meets both can have: what the statistics verdict's limits are derived from
(opdiff.numerics.statistics_limits). Which row a pair takes, :func:`precision_row`, is decided here
once for both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, Optional, Tuple

from opdiff.numerics.schema import NORM_RATIO_ERROR

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

    @property
    def error_norm(self) -> float:
        """rho = sqrt(r^2 + 2 (1 + r)(1 - c)): the largest ||x - y|| / ||y|| of a tensor that meets
        both limits. ||x - y||^2 / ||y||^2 = a^2 - 2 a cos + 1 with a = ||x|| / ||y||, largest at
        a = 1 + r and cos = c."""
        c, r = self.cosine, self.norm_ratio
        return math.sqrt(r * r + 2.0 * (1.0 + r) * (1.0 - c))

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


__all__ = [
    "BF16_NPU_VS_NPU",
    "BF16_VS_FP32",
    "COSINE_ROUNDINGS",
    "FP8_VS_FLOAT",
    "FP16_NPU_VS_NPU",
    "FP16_VS_FP32",
    "INT8_CREST_FACTOR",
    "INT8_VS_FLOAT",
    "LOCAL_COSINE_ROUNDINGS",
    "LOCAL_NORM_ROUNDINGS",
    "NORM_ROUNDINGS",
    "PRECISION_ROWS",
    "PrecisionRow",
    "precision_row",
]

"""The target a search must reach: every model output passes the verdict.

The default is the comparison's own verdict (:class:`opdiff.results.verdict.PrecisionVerdict`, the
fp16-vs-fp32 row) at every model output; ``--fail-under METRIC=VALUE`` replaces it by fixed limits,
as compare takes them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence

import numpy as np

from opdiff.numerics.core_adapter import metrics as compare_arrays
from opdiff.results.rows import CompareRow, TensorId
from opdiff.results.verdict import PrecisionVerdict, Threshold, ThresholdVerdict, Verdict


@dataclass(frozen=True)
class OutputCheck:
    """One model output against its golden: the two figures the report shows, and the verdict."""

    name: str
    cosine: float
    norm_ratio_error: float
    passed: bool

    def as_json(self) -> Dict[str, object]:
        return {"output": self.name, "cosine": _finite(self.cosine), "norm_ratio_error": _finite(self.norm_ratio_error),
                "passed": self.passed}


def _finite(value: float) -> Optional[float]:
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class Target:
    """The verdict at the outputs: `thresholds` (``--fail-under``) or, empty, the default verdict
    of a run in `my_dtype` (``"float16"``; ``"int8"`` for a quantized run) against float32."""

    thresholds: Sequence[Threshold] = ()
    my_dtype: str = "float16"

    @classmethod
    def parse(cls, fail_under: Sequence[str], my_dtype: str = "float16") -> Target:
        """The target ``--fail-under`` texts ask for; ValueError naming one that does not parse."""
        return cls(tuple(Threshold.parse(text) for text in fail_under), my_dtype)

    def text(self) -> str:
        if self.thresholds:
            return ", ".join(t.text for t in self.thresholds)
        return "the default verdict at every model output"

    def check(self, outputs: Mapping[str, np.ndarray], golden: Mapping[str, np.ndarray]) -> List[OutputCheck]:
        """Each output of `golden` checked against the same-named tensor of `outputs`."""
        rows = [self._row(k, name, np.asarray(outputs[name]), np.asarray(golden[name])) for k, name in enumerate(golden)]
        verdict = self._verdict(rows)
        checks = []
        for row in rows:
            assert row.metrics is not None
            checks.append(OutputCheck(row.ground_truth, row.metrics.cosine_similarity, row.metrics.norm_ratio_error,
                                      not verdict.fails(row)))
        return checks

    def _row(self, index: int, name: str, mine: np.ndarray, golden: np.ndarray) -> CompareRow:
        quantized = self.my_dtype == "int8"
        return CompareRow(index, "Output", name, name, TensorId(name, "output", 0),
                          my_dtype="float16" if quantized else self.my_dtype, golden_dtype="float32",
                          metrics=compare_arrays(mine.astype(np.float32), golden.astype(np.float32)))

    def _verdict(self, rows: Sequence[CompareRow]) -> Verdict:
        if self.thresholds:
            return ThresholdVerdict(tuple(self.thresholds))
        return PrecisionVerdict.for_rows(rows, npu_vs_npu=False, quantized=self.my_dtype == "int8")

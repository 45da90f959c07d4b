"""An NPU op output's own error: the op re-run alone, on the device's own inputs, against its
source model (``opdiff compare --isolate MODEL``). The isolate package computes it; the result rows
carry it (``CompareRow.local``), and the advisor and the writers read it from there."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Optional, Tuple

from opdiff.numerics.values import Metrics


class LocalVerdict(str, Enum):
    """The isolation CSV's LocalVerdict column."""

    PASS = "pass"
    FAIL = "fail"
    NOT_ISOLATED = "not isolated"


@dataclass(frozen=True)
class LocalError:
    """One output tensor of an NPU op compared with its local golden: the subgraph of the source
    model from the op's dumped inputs to its original outputs, run in float32 by ONNX Runtime
    (or, for a frozen TensorFlow graph, by a TensorFlow Session).

    ``metrics`` is None when the op could not be isolated, and ``reason`` says why.
    ``amplification`` is the output's end-to-end error over the worst end-to-end error of the op's
    inputs (results.isolation.error_measure; NaN when no input was compared).
    ``weight_mismatches`` name the dumped weights that differ from the model's beyond the dumped
    dtype's rounding (checked only where that is sound, see docs/isolating-an-op.md).
    """

    original_ops: Tuple[str, ...]
    metrics: Optional[Metrics] = None
    reason: str = ""
    amplification: float = float("nan")
    weight_mismatches: Tuple[str, ...] = ()

    @property
    def isolated(self) -> bool:
        return self.metrics is not None

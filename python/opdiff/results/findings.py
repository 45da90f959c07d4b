"""The advisor's conclusions as the result model holds them: what kind, where (op, tensor, Index), the
figures and the advice. The advisor makes them; the console, JSON, HTML and summary writers show them."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Tuple

from opdiff.results.rows import TensorId


class FindingKind(str, Enum):
    INPUT_MISMATCH = "model inputs differ"
    OVERFLOW = "overflow"
    CULPRIT = "culprit op"
    ACCUMULATED_DRIFT = "accumulated drift"
    # with --isolate (each op re-run alone on the device's own inputs, CompareRow.local):
    WEIGHT_MISMATCH = "weight mismatch"  # a dumped weight differs from the source model's beyond rounding
    INHERITED = "inherited error"  # fails end to end, passes locally: the error comes from its inputs
    AMPLIFIED = "amplified error"  # inherited, and the op amplifies the error it receives (x4 or more)
    CONSTANT_OUTPUT = "constant output"
    VERDICT = "end-to-end verdict"
    # from `opdiff precision`: an op its search keeps, the fix it found; not a diagnosis (a kept op
    # need not fail on its own inputs, so it is no culprit). The value is the op's label on the page.
    KEPT_IN_FP32 = "kept in fp32"  # ATC's --keep_dtype keeps it in float32 under an fp16 precision mode
    LEFT_UNQUANTIZED = "left unquantized"  # AMCT's skip_layers leaves it in float in an int8 model

    @property
    def is_kept(self) -> bool:
        """Whether the finding names an op a precision search keeps (the graph view marks it kept)."""
        return self in (FindingKind.KEPT_IN_FP32, FindingKind.LEFT_UNQUANTIZED)


@dataclass(frozen=True)
class Finding:
    """One conclusion: what, where (op and tensor, with the row's Index), the figures, the advice."""

    kind: FindingKind
    op: str
    tensor_index: str
    index: int
    evidence: str
    advice: str
    chain: Tuple[Tuple[TensorId, float], ...] = field(default=())  # (tensor, cosine) from the earliest failing op on

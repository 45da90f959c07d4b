"""The advisor's findings from each op's own error (``opdiff compare --isolate``): the rows carry it
(``CompareRow.local``). A culprit is every op whose own output fails locally; an op that fails end
to end but passes locally inherits its error (and may amplify it); a dumped weight that differs from
the source model's is a weight mismatch."""

from __future__ import annotations

import math
from typing import Callable, Dict, List, Sequence

from opdiff.results.findings import Finding, FindingKind
from opdiff.results.rows import CompareRow
from opdiff.results.verdict import PrecisionVerdict

# An inherited error this many times the op's worst input error (results.isolation.error_measure) is
# called amplified: the same growth the advisor takes for more than passing error on.
AMPLIFICATION_SHOWN = 4.0


def _local_text(row: CompareRow) -> str:
    m = row.local.metrics if row.local is not None else None
    assert m is not None
    return f"local cosine {m.cosine_similarity:.6f}, local NormRatioError {m.norm_ratio_error:.3g}"


def _end_to_end_text(row: CompareRow) -> str:
    m = row.metrics
    assert m is not None
    return f"cosine {m.cosine_similarity:.6f}, NormRatioError {m.norm_ratio_error:.3g}"


def isolation_findings(rows: Sequence[CompareRow], fails: Callable[[CompareRow], bool], judge: PrecisionVerdict) -> List[Finding]:
    """Culprits and weight mismatches (execution order), then amplified and inherited ops, from the
    output rows of `rows` (in execution order) that carry a local error; `fails` is the end-to-end verdict."""
    by_op: Dict[str, List[CompareRow]] = {}
    for row in rows:
        if row.tensor.role == "output" and row.local is not None:
            by_op.setdefault(row.tensor.op, []).append(row)
    culprits: List[Finding] = []
    passed_on: List[Finding] = []
    for op, outputs in by_op.items():
        ops_text = ", ".join(outputs[0].local.original_ops) if outputs[0].local else op
        mismatches = next((row for row in outputs if row.local is not None and row.local.weight_mismatches), None)
        local_failure = next((row for row in outputs if judge.fails_locally(row)), None)
        if local_failure is not None:
            e2e = f"; end to end {_end_to_end_text(local_failure)}" if local_failure.compared else ""
            culprits.append(Finding(
                FindingKind.CULPRIT, op, local_failure.tensor_index, local_failure.index,
                f"fails on the device's own inputs: {_local_text(local_failure)}{e2e}",
                f"{op}, re-run alone on the inputs the device gave it (source ops {ops_text}), produces a different output: "
                "the op itself is wrong. Check its implementation (precision mode, fusion pattern, operator version).",
            ))
        if mismatches is not None and mismatches.local is not None:
            culprits.append(Finding(
                FindingKind.WEIGHT_MISMATCH, op, mismatches.tensor_index, mismatches.index,
                "; ".join(mismatches.local.weight_mismatches),
                f"The weight {op} holds on the device differs from the source model's beyond rounding: check the weight "
                "conversion (layout, transposition, quantisation scale) or the model file the device model was built from.",
            ))
        if local_failure is None:
            inherited = next((row for row in outputs if row.compared and fails(row) and row.local is not None
                              and row.local.isolated), None)
            if inherited is not None:
                passed_on.append(_inherited(op, inherited))
    amplified = [f for f in passed_on if f.kind is FindingKind.AMPLIFIED]
    return culprits + amplified + [f for f in passed_on if f.kind is FindingKind.INHERITED]


def _inherited(op: str, row: CompareRow) -> Finding:
    local = row.local
    assert local is not None
    factor = local.amplification
    evidence = f"fails end to end ({_end_to_end_text(row)}) but passes on the device's own inputs ({_local_text(row)})"
    if not math.isnan(factor) and factor >= AMPLIFICATION_SHOWN:
        shown = "inf" if math.isinf(factor) else f"{factor:.3g}"
        return Finding(
            FindingKind.AMPLIFIED, op, row.tensor_index, row.index, f"{evidence}; it amplifies the error it receives (x{shown})",
            f"{op} computes what it is given correctly, but amplifies the error it receives (x{shown}), as exponentials and "
            "divisions do: fix the error upstream, or keep this op's inputs in higher precision.",
        )
    return Finding(
        FindingKind.INHERITED, op, row.tensor_index, row.index, evidence,
        f"{op} computes what it is given correctly: its error is inherited from its inputs. Look at the culprits above.",
    )

"""Finding the culprit: what went wrong first, and whether one op is to blame.

In execution order (the fusion map's topological order; row order without one):
1. the model inputs differ: nothing downstream can be trusted;
2. overflow on the compared side (fp16 |x| >= 65504, or Inf/NaN in any float type);
3. the first tensor the verdict fails, and then culprit vs accumulated error: if the op's
   inputs match the golden and its output does not, the op is the culprit; if its inputs already
   differ, the producers are walked back to the earliest failing op; an op that adds only a little
   error to inputs that are already off is accumulated drift, not a culprit;
4. constant outputs on the compared side where the golden varies, and the end-to-end verdict (does
   the error reach the model outputs?).

Every step judges tensors by the one verdict of the report (opdiff.results.verdict), so no finding
fires on a tensor whose differences vanish at the network's scale.
"""

from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass, replace
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from opdiff.advisor.isolation_findings import isolation_findings
from opdiff.graph import FusionMap
from opdiff.numerics.overflow import largest_magnitude, overflows, special_values
from opdiff.results.findings import Finding, FindingKind
from opdiff.results.isolation import error_measure, is_isolated_report, local_judge
from opdiff.results.rows import CompareRow
from opdiff.results.tensor_report import Report
from opdiff.results.verdict import Verdict, VerdictLike, is_negligible, network_scale

# An op whose output error is at most this many times its inputs' error only passes error on.
DRIFT_GROWTH = 4.0
# What settles a guess from dumps alone (docs/isolating-an-op.md).
SETTLE_IT = ("To settle it, re-run every op alone on the device's own inputs: add --isolate SOURCE.onnx (the model the "
             "device model was converted from) to this opdiff compare command.")


def op_of(row: CompareRow) -> str:
    """The NPU op a row belongs to (a row about a whole op, one without a tensor: its NPUDump)."""
    return row.tensor.op if row.tensor.role is not None else row.npu_dump


def run_of(row: CompareRow) -> int:
    """Which run of its op a row compares (under ``--all``; 0 otherwise)."""
    return row.tensor.run or 0


def _one_run(report: Report, verdict: Verdict) -> Report:
    """The rows of one run when ``--all`` compared several: the first run with a failing row (else
    run 0). The analysis follows one execution of the graph, where each op appears once."""
    runs = sorted({run_of(row) for row in report.rows})
    if len(runs) < 2:
        return report
    failing_runs = [run_of(row) for row in report.failing(verdict)]
    chosen = min(failing_runs) if failing_runs else runs[0]
    return replace(report, rows=[row for row in report.rows if run_of(row) == chosen])


def role_of(row: CompareRow) -> str:
    return row.tensor.role or ""


def _cos(row: CompareRow) -> float:
    return row.metrics.cosine_similarity if row.metrics is not None else math.nan


def _norm(row: CompareRow) -> float:
    return row.metrics.norm_ratio_error if row.metrics is not None else math.nan


def _error(row: CompareRow) -> float:
    """The advisor's error measure of a row (results.isolation.error_measure)."""
    return error_measure(row.metrics)


@dataclass
class _Context:
    report: Report
    fusion_map: Optional[FusionMap]
    verdict: Verdict
    ignored: Sequence[str]

    def __post_init__(self) -> None:
        # Findings respect the network's scale whatever the verdict (--thresholds reference included).
        self.scale = network_scale(self.report.rows)
        order = {name: i for i, name in enumerate(self.fusion_map.execution_order)} if self.fusion_map else {}
        position = {id(row): i for i, row in enumerate(self.report.rows)}
        rows = [row for row in self.report.rows if row.compared and not self.is_ignored(op_of(row))]
        # Execution order, inputs before outputs of the same op (rows of one op are adjacent).
        self.rows = sorted(rows, key=lambda row: (order.get(op_of(row), len(order) + row.index), position[id(row)]))
        self.by_op: Dict[str, List[CompareRow]] = {}
        for row in self.rows:
            self.by_op.setdefault(op_of(row), []).append(row)

    def is_ignored(self, op: str) -> bool:
        return any(fnmatch.fnmatchcase(op, pattern) for pattern in self.ignored)

    def fails(self, row: CompareRow) -> bool:
        return self.verdict.fails(row)

    def rows_of(self, op: str, role: str) -> List[CompareRow]:
        return [row for row in self.by_op.get(op, []) if role_of(row) == role]

    def producer_ops(self, op: str) -> List[str]:
        if self.fusion_map is None or self.fusion_map.get(op) is None:
            return []
        return [p.name for p in self.fusion_map.producers(op) if p is not None]

    def input_producer(self, op: str, index: Optional[int]) -> Optional[str]:
        """The op that feeds input `index` of `op`, if the fusion map says."""
        found = self.fusion_map.get(op) if self.fusion_map is not None else None
        if found is None or index is None or not 0 <= index < len(found.inputs):
            return None
        producer = self.fusion_map.producer(found.inputs[index]) if self.fusion_map is not None else None
        return producer.name if producer is not None else None


def _input_mismatch(ctx: _Context) -> Optional[Finding]:
    data_ops = {op.name for op in ctx.fusion_map.data_ops} if ctx.fusion_map else set()
    for row in ctx.rows:
        op = op_of(row)
        # This input's own producer: an optimizer update reads a variable (Data) and a gradient.
        fed_by_data = role_of(row) == "input" and ctx.input_producer(op, row.tensor.index) in data_ops
        if (op in data_ops or fed_by_data) and ctx.fails(row) and row.metrics is not None:
            return Finding(
                FindingKind.INPUT_MISMATCH, op, row.tensor_index, row.index,
                f"cosine {_cos(row):.6f}, max abs error {row.metrics.max_absolute_error:.6g} on a model input",
                "The two runs were not fed the same input. Use identical input data and check the preprocessing "
                "(normalisation, layout, dtype, AIPP) before reading anything downstream.",
            )
    return None


def _overflow(ctx: _Context) -> Optional[Finding]:
    for row in ctx.rows:
        x = row.metrics.x  # type: ignore[union-attr]
        if overflows(row.my_dtype, x):
            what = f"{x.nan} NaN, {x.pos_inf} +Inf, {x.neg_inf} -Inf" if special_values(x) else f"max |x| = {largest_magnitude(x):g}"
            return Finding(
                FindingKind.OVERFLOW, op_of(row), row.tensor_index, row.index,
                f"{what} on the compared side ({row.my_dtype})",
                "The values leave the range of the device's data type here. Keep this op (or its producer) in "
                "float32 / bfloat16, rescale its inputs, or check the loss-scale and quantisation settings.",
            )
    return None


def _earliest_failing(ctx: _Context, op: str, seen: Optional[Set[str]] = None) -> Tuple[str, List[str]]:
    """Walk failing inputs back through producers: the earliest op whose output fails while its
    inputs pass, and the chain of ops from there to `op`."""
    seen = seen if seen is not None else set()
    seen.add(op)
    for producer in ctx.producer_ops(op):
        if producer in seen:
            continue
        outputs = ctx.rows_of(producer, "output")
        if outputs and any(ctx.fails(row) for row in outputs):
            start, chain = _earliest_failing(ctx, producer, seen)
            return start, chain + [op]
    return op, [op]


def _trend_ops(ctx: _Context, op: str, depth: int = 8) -> List[str]:
    """`op` and up to `depth` ancestors along the worst-matching input: the metric trend leading to it."""
    path = [op]
    while len(path) <= depth:
        producers = [p for p in ctx.producer_ops(path[0]) if ctx.rows_of(p, "output") and p not in path]
        if not producers:
            break
        path.insert(0, max(producers, key=lambda p: _error(ctx.rows_of(p, "output")[0])))
    return path


def _first_divergence(ctx: _Context) -> Optional[Finding]:
    first = next((row for row in ctx.rows if role_of(row) == "output" and ctx.fails(row)), None)
    if first is None:
        return None
    start, chain_ops = _earliest_failing(ctx, op_of(first))
    outputs = ctx.rows_of(start, "output")
    out_row = next((row for row in outputs if ctx.fails(row)), outputs[0] if outputs else first)
    inputs = ctx.rows_of(start, "input")
    chain = tuple((row.tensor, _cos(row)) for op in _trend_ops(ctx, start) + chain_ops[1:]
                  for row in ctx.rows_of(op, "output")[:1])
    worst_input = max((_error(row) for row in inputs), default=0.0)
    growth = _error(out_row) / worst_input if worst_input > 0 else math.inf
    inputs_fail = any(ctx.fails(row) for row in inputs)
    if not inputs:
        input_evidence = "no input compared"
    elif worst_input == 0:
        input_evidence = "its inputs match the golden exactly"
    else:
        input_evidence = (f"inputs' worst cosine {min(_cos(row) for row in inputs):.6f} and NormRatioError "
                          f"{max(_norm(row) for row in inputs):.3g}, error grows {growth:.3g}x across the op")
    evidence = (
        f"output cosine {_cos(out_row):.6f}, NormRatioError {_norm(out_row):.3g} "
        f"(max rel error {out_row.metrics.max_relative_error:.4g}); "  # type: ignore[union-attr]
        + input_evidence
    )
    if not inputs_fail and (growth > DRIFT_GROWTH or not inputs):
        received = (f"{start} receives inputs that match the golden and" if inputs else
                    f"{start} is the first op whose output fails (its inputs have no golden partner to check), and it")
        return Finding(
            FindingKind.CULPRIT, start, out_row.tensor_index, out_row.index, evidence,
            f"{received} produces an output that does not match: the op itself is most likely wrong. Check its "
            "implementation (precision mode, fusion pattern, operator version). " + SETTLE_IT,
            chain,
        )
    return Finding(
        FindingKind.ACCUMULATED_DRIFT, start, out_row.tensor_index, out_row.index, evidence,
        "No single op stands out: each op passes on slightly more error than it receives, until the threshold is "
        "crossed here. Look at precision settings of the whole path (fp16 accumulation, mixed precision lists) "
        "rather than at this op. " + SETTLE_IT,
        chain,
    )


def _constant_outputs(ctx: _Context) -> List[Finding]:
    found = []
    for row in ctx.rows:
        m = row.metrics
        if (role_of(row) == "output" and m is not None and m.count > 1 and m.x.std == 0 and m.y.std > 0
                and not is_negligible(m, ctx.scale)):
            found.append(Finding(
                FindingKind.CONSTANT_OUTPUT, op_of(row), row.tensor_index, row.index,
                f"every element is {m.x.min:g} on the compared side; the golden varies (std {m.y.std:.4g})",
                "A constant output usually means the op was skipped, read uninitialised memory or saturated.",
            ))
    return found


def _verdict(ctx: _Context) -> Optional[Finding]:
    if not ctx.rows:
        return None
    if ctx.fusion_map is not None and ctx.fusion_map.output_refs:
        final_ops = {ref.producer for ref in ctx.fusion_map.output_refs}
        finals = [row for row in ctx.rows if op_of(row) in final_ops and role_of(row) == "output"]
    else:
        finals = []
    finals = finals or [row for row in ctx.rows if role_of(row) == "output"][-1:]
    failing = [row for row in finals if ctx.fails(row)]
    anything_fails = any(ctx.fails(row) for row in ctx.rows)
    last = (failing or finals)[0]
    if failing:
        evidence, advice = (f"model output {last.tensor_index}: cosine {_cos(last):.6f}",
                            "The error reaches the model outputs: the end result is affected. Fix the first finding above.")
    elif anything_fails:
        evidence, advice = (f"model output {last.tensor_index}: cosine {_cos(last):.6f}",
                            "Some tensors deviate but the model outputs meet the thresholds: probably internal optimisation "
                            "that does not matter for the result. Check with the end-to-end metric of the task.")
    else:
        evidence, advice = ("every compared tensor meets the thresholds",
                            "The NPU run matches the golden; if results still differ, look at pre- and post-processing.")
    return Finding(FindingKind.VERDICT, op_of(last), last.tensor_index, last.index, evidence, advice)


def advise(
    report: Report,
    fusion_map: Optional[FusionMap] = None,
    *,
    verdict: VerdictLike = None,
    ignore_ops: Iterable[str] = (),
) -> List[Finding]:
    """The advisor's findings for a comparison, most important first (the verdict last).

    `verdict` judges each tensor (default: the report's default verdict; a list of Thresholds is
    taken too); `ignore_ops` are fnmatch patterns of ops kept out of the analysis (placeholders, noise).
    """
    judge = report.verdict(verdict)
    ctx = _Context(_one_run(report, judge), fusion_map, judge, tuple(ignore_ops))
    findings: List[Finding] = []
    for step in (_input_mismatch, _overflow):
        found = step(ctx)
        if found is not None:
            findings.append(found)
    isolated = isolation_findings(ctx.rows, ctx.fails, local_judge(report)) if is_isolated_report(report) else []
    if any(f.kind in (FindingKind.CULPRIT, FindingKind.INHERITED, FindingKind.AMPLIFIED) for f in isolated):
        findings += isolated
    else:  # no isolation, or none of the failing ops could be isolated: the guess from dumps alone
        findings += [f for f in isolated if f.kind is FindingKind.WEIGHT_MISMATCH]
        divergence = _first_divergence(ctx)
        if divergence is not None:
            findings.append(divergence)
    findings += _constant_outputs(ctx)
    end_to_end = _verdict(ctx)
    if end_to_end is not None:
        findings.append(end_to_end)
    return findings

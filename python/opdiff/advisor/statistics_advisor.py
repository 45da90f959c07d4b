"""The advisor on a statistics comparison, as far as statistics allow: NaN/Inf or fp16 overflow on
my side, the first failing output in execution order (row order) and whether its op is the culprit
(its inputs' statistics still match and its output's do not, or the error grows more than
advisor.DRIFT_GROWTH times across it) or passes on accumulated drift, constant outputs, and the
end-to-end verdict. Findings are advisor.Finding objects, so the same writers show them."""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence

from opdiff.advisor.tensor_advisor import DRIFT_GROWTH
from opdiff.numerics.overflow import beyond_fp16_range, largest_magnitude
from opdiff.results.findings import Finding, FindingKind
from opdiff.results.statistics_rows import StatisticsRow
from opdiff.results.statistics_verdict import StatisticsVerdict

if TYPE_CHECKING:
    from opdiff.results.statistics_report import StatisticsReport


def op_of(row: StatisticsRow) -> str:
    """The NPU op of a row, as tensor_advisor.op_of for tensor rows."""
    return row.tensor.op if row.tensor.role is not None else row.npu_dump


def role_of(row: StatisticsRow) -> str:
    return row.tensor.role or ""


def _error(row: StatisticsRow) -> float:
    d = row.differences
    assert d is not None
    values = (d.max_norm, d.min_norm, d.mean_norm)
    return float("inf") if any(v != v for v in values) else max(values)


def _overflow(rows: Sequence[StatisticsRow]) -> Optional[Finding]:
    for row in rows:
        my, golden = row.my, row.golden
        assert my is not None and golden is not None
        # Statistics of both sides are at hand: NaN/Inf count only where the golden has fewer.
        big = my.data_type == "DT_FLOAT16" and beyond_fp16_range(my)
        if my.special > golden.special or big:
            what = f"{my.nan} NaN, {my.pos_inf} +Inf, {my.neg_inf} -Inf" if my.special else f"max |x| = {largest_magnitude(my):g}"
            return Finding(FindingKind.OVERFLOW, op_of(row), row.tensor_index, row.index,
                           f"{what} on the compared side ({my.data_type}); the golden has {golden.special} NaN/Inf",
                           "The values leave the range of the device's data type here. Keep this op (or its producer) "
                           "in float32 / bfloat16, rescale its inputs, or check the loss-scale settings.")
    return None


def _first_divergence(rows: Sequence[StatisticsRow], verdict: StatisticsVerdict) -> Optional[Finding]:
    first = next((row for row in rows if role_of(row) == "output" and verdict.fails(row)), None)
    if first is None:
        return None
    op = op_of(first)
    inputs = [row for row in rows if op_of(row) == op and role_of(row) == "input"]
    worst_input = max((_error(row) for row in inputs), default=0.0)
    growth = _error(first) / worst_input if worst_input > 0 else float("inf")
    evidence = (f"output max {first.my.max:g} vs {first.golden.max:g}, mean {first.my.mean:g} vs {first.golden.mean:g} "  # type: ignore[union-attr]
                f"(difference {_error(first):.3g} of the golden's magnitude); "
                + (f"inputs' worst {worst_input:.3g}" if inputs else "no input compared"))
    if not any(verdict.fails(row) for row in inputs) and (growth > DRIFT_GROWTH or not inputs):
        return Finding(FindingKind.CULPRIT, op, first.tensor_index, first.index, evidence,
                       f"{op} receives inputs whose statistics match the golden and produces an output whose statistics "
                       "do not: the op itself is most likely wrong. Dump this op in full (tensor mode) to see where.")
    return Finding(FindingKind.ACCUMULATED_DRIFT, op, first.tensor_index, first.index, evidence,
                   "The op's inputs already differ: the error was passed on to it. Dump the path leading here in full "
                   "(tensor mode) and look at precision settings of the whole path.")


def _constant_outputs(rows: Sequence[StatisticsRow]) -> List[Finding]:
    return [Finding(FindingKind.CONSTANT_OUTPUT, op_of(row), row.tensor_index, row.index,
                    f"every element is {row.my.max:g} on the compared side; the golden ranges over "
                    f"[{row.golden.min:g}, {row.golden.max:g}]",
                    "A constant output usually means the op was skipped, read uninitialised memory or saturated.")
            for row in rows if role_of(row) == "output" and row.my and row.golden and row.my.count > 1
            and row.my.max == row.my.min and row.golden.max != row.golden.min]


def advise_statistics(report: StatisticsReport, verdict: Optional[StatisticsVerdict] = None) -> List[Finding]:
    """The findings for a statistics comparison, most important first (the verdict last); by default
    under the report's own verdict."""
    verdict = report.verdict(verdict)
    rows = [row for row in report.rows if row.compared]
    findings = [f for f in (_overflow(rows), _first_divergence(rows, verdict)) if f is not None]
    findings += _constant_outputs(rows)
    outputs = [row for row in rows if role_of(row) == "output"]
    if outputs:
        last = outputs[-1]
        anything = any(verdict.fails(row) for row in rows)
        if verdict.fails(last):
            advice = "The error reaches the last output: the end result is affected. Fix the first finding above."
        elif anything:
            advice = "Some tensors deviate but the last output meets the thresholds."
        else:
            advice = "The statistics of every compared tensor match the golden."
        findings.append(Finding(FindingKind.VERDICT, op_of(last), last.tensor_index, last.index,
                                f"last output {last.tensor_index}: difference {_error(last):.3g} of the golden's magnitude", advice))
    return findings


__all__ = ["advise_statistics"]

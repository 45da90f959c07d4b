"""`compare_runs`: every run of a dump tree compared, locally or on a cluster, and the reports the
client writes: one CSV per run as it finishes (``{device}_{model}_{step}_result_{ts}.csv``, the
reference's batch-mode name) and ``summary_{ts}.json`` across runs."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Union

from opdiff.engine.options import CompareOptions
from opdiff.fileio.interrupts import interrupts_deferred
from opdiff.graph import FusionMap
from opdiff.match.mapping_csv import write_mapping_rows
from opdiff.match.planning import read_rule
from opdiff.report.file_names import run_mapping_file_name, run_result_file_name, runs_summary_file_name, timestamp
from opdiff.report.runs.json_writer import write_summary_json
from opdiff.report.tensor.csv_writer import ReferenceCsvWriter
from opdiff.results.runs_summary import JobEnd, RunEntry, RunsSummary, RunStatus
from opdiff.results.verdict import Verdict
from opdiff.runs.executor import Executor
from opdiff.runs.local import LocalExecutor
from opdiff.runs.plan import RunPlan, plan_runs
from opdiff.runs.rules import RuleSet, read_rules
from opdiff.runs.summary import SummaryBuilder
from opdiff.runs.task import RunOutcome, RunTask

if TYPE_CHECKING:
    from opdiff.results.tensor_report import Report

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class RunsRequest:
    """What to compare: both sides as the machines that hold them spell them, and how. The options'
    rules may be folders of rules (read here, one per model); ids given as -r/-s are resolved
    against each run's own rule."""

    my: str
    golden: str
    options: CompareOptions = field(default_factory=CompareOptions)


@dataclass(frozen=True)
class FinishedRun:
    """A compared run as the client holds it, its CSV written: what a per-run writer is handed
    before the rows are dropped (the advisor and the xlsx report of ``opdiff compare``)."""

    label: str
    ts: str
    report: Report
    csv: Path
    fusion_rule: Optional[FusionMap]


# Writes a run's further files beside its CSV; returns them by kind ("advisor", "xlsx")
RunWriter = Callable[[FinishedRun], Dict[str, Path]]


def tasks_of(plan: RunPlan, request: RunsRequest, rules: RuleSet, close_rules: RuleSet, quant: RuleSet,
             builder: SummaryBuilder) -> List[RunTask]:
    """A task per planned run, with its model's rules; a run whose -cf folder has no rule is skipped."""
    tasks: List[RunTask] = []
    for run in plan.runs:
        close = close_rules.for_model(run.key.model)
        if close.reason is not None:
            builder.add_not_compared(run.key, close.reason)
            continue
        rule = rules.for_model(run.key.model).rule
        # the run's folder is its step's already; -r/-s are resolved against the run's own rule
        options = request.options.replace(fusion_rule=rule, close_fusion_rule=close.rule, quant_fusion_rule=quant.single,
                                          ids=request.options.ids_for(rule), step=None, csv=None, progress=False)
        tasks.append(RunTask(run, options))
    return tasks


def compare_runs(
    request: RunsRequest,
    out: PathLike = ".",
    *,
    verdict: Optional[Verdict] = None,
    executor: Optional[Executor] = None,
    on_run: Optional[Callable[[RunEntry], None]] = None,
    per_run: Optional[RunWriter] = None,
    on_warning: Optional[Callable[[str], None]] = None,
) -> RunsSummary:
    """Compare every run `request` names (docs/many-runs.md) with `executor` (default: this
    machine) and write the CSVs and the summary into `out`. ValueError for inputs no run can use.
    `on_run` hears of each run as its CSV is written (the CLI prints a line); `per_run` writes a
    compared run's further files, here on the client, before its rows are dropped; `on_warning`
    hears the plan's warnings before any run starts (they are in the summary's `warnings` too)."""
    executor = executor or LocalExecutor()
    options = request.options  # -r/-s without -f: refused when the options were made
    out_folder = Path(out)
    out_folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    rules, close_rules = read_rules(options.fusion_rule), read_rules(options.close_fusion_rule)
    quant = read_rules(options.quant_fusion_rule)
    if quant.is_folder:
        raise ValueError(f"{options.quant_fusion_rule}: -q takes one quant fusion rule, not a folder")
    plan = plan_runs(executor.views(request.my, request.golden, options.step), rules)
    if on_warning is not None:
        for warning in plan.warnings:
            on_warning(warning)
    ts = timestamp()
    builder = SummaryBuilder(request.my, request.golden, verdict)
    for skipped in plan.skipped:
        builder.add_not_compared(skipped.key, skipped.reason)
    tasks = tasks_of(plan, request, rules, close_rules, quant, builder)
    rule_of = {task.key: read_rule(task.options.fusion_rule) for task in tasks}
    lost = False

    def record(outcome: RunOutcome) -> RunEntry:
        """Write the run's files and enter them in the summary: both or, after a Ctrl-C before
        the block, neither (the interrupt waits for the block's end)."""
        nonlocal lost
        if outcome.mapping is not None:
            mapping = write_mapping_rows(outcome.mapping, out_folder / run_mapping_file_name(outcome.key.label, ts))
            return builder.add_mapping(outcome.key, mapping, outcome.location)
        if outcome.report is None:
            lost = lost or outcome.lost
            return builder.add_not_compared(outcome.key, outcome.reason or "not compared", location=outcome.location)
        csv = write_run_csv(outcome.report, out_folder / run_result_file_name(outcome.key.label, ts))
        files: Dict[str, Path] = {}
        if per_run is not None:
            outcome.report.csv_path = csv
            files = per_run(FinishedRun(outcome.key.label, ts, outcome.report, csv, rule_of.get(outcome.key)))
        return builder.add_report(outcome.key, outcome.report, csv, outcome.location, files)

    def on_outcome(outcome: RunOutcome) -> None:
        with interrupts_deferred():
            entry = record(outcome)
        if on_run is not None:
            on_run(entry)

    execution = executor.execute(tasks, on_outcome)
    end, stopped_by = execution.end, execution.reason
    if end is JobEnd.COMPLETE and lost:
        end, stopped_by = JobEnd.CLUSTER_LOST, "a worker was lost and some of its runs could go to no other worker"
    for task in tasks:
        if task.key not in builder.entries:
            builder.add_not_compared(task.key, stopped_by or "not finished", RunStatus.MISSING)
    summary = builder.build(end, stopped_by, verdict.name if verdict is not None else "default")
    summary.warnings = list(plan.warnings)
    summary.path = write_summary_json(summary, out_folder / runs_summary_file_name(ts))
    return summary


def write_run_csv(report: Report, path: Path) -> Path:
    """The run's rows through the single comparison's CSV writer; whole or absent, even on Ctrl-C."""
    writer = ReferenceCsvWriter(path, report.columns)
    try:
        for row in report.rows:
            writer.write(row)
        return writer.close()
    except BaseException:
        writer.discard()
        raise

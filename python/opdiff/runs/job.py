"""`compare_runs`: every run of a dump tree compared, locally or on a cluster, and the reports the
client writes: one CSV per run as it finishes (``{device}_{model}_{step}_result_{ts}.csv``, the
reference's batch-mode name) and ``summary_{ts}.json`` across runs."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, List, Optional, Union

from opdiff.report.file_names import run_result_file_name, runs_summary_file_name, timestamp
from opdiff.report.runs.json_writer import write_summary_json
from opdiff.report.tensor.csv_writer import ReferenceCsvWriter
from opdiff.results.runs_summary import JobEnd, RunEntry, RunsSummary, RunStatus
from opdiff.results.verdict import Verdict
from opdiff.runs.executor import Executor
from opdiff.runs.local import LocalExecutor
from opdiff.runs.plan import RunPlan, plan_runs
from opdiff.runs.rules import RuleSet, read_rules
from opdiff.runs.summary import SummaryBuilder
from opdiff.runs.task import CompareOptions, RunOutcome, RunTask

if TYPE_CHECKING:
    from opdiff.results.tensor_report import Report

PathLike = Union[str, "os.PathLike[str]"]


@dataclass
class RunsRequest:
    """What to compare: both sides as the machines that hold them spell them, and the rules (files
    or folders of rules, read here)."""

    my: str
    golden: str
    fusion_rule: Optional[Path] = None
    close_fusion_rule: Optional[Path] = None
    quant_fusion_rule: Optional[Path] = None
    step: Optional[int] = None
    options: CompareOptions = field(default_factory=CompareOptions)


def tasks_of(plan: RunPlan, request: RunsRequest, rules: RuleSet, close_rules: RuleSet, quant: RuleSet,
             builder: SummaryBuilder) -> List[RunTask]:
    """A task per planned run, with its model's rules; a run whose -cf folder has no rule is skipped."""
    tasks: List[RunTask] = []
    for run in plan.runs:
        close = close_rules.for_model(run.key.model)
        if close.reason is not None:
            builder.add_not_compared(run.key, close.reason)
            continue
        tasks.append(RunTask(run, request.options, rules.for_model(run.key.model).rule, close.rule, quant.single))
    return tasks


def compare_runs(
    request: RunsRequest,
    out: PathLike = ".",
    *,
    verdict: Optional[Verdict] = None,
    executor: Optional[Executor] = None,
    on_run: Optional[Callable[[RunEntry], None]] = None,
) -> RunsSummary:
    """Compare every run `request` names (docs/many-runs.md) with `executor` (default: this
    machine) and write the CSVs and the summary into `out`. ValueError for inputs no run can use.
    `on_run` hears of each run as its CSV is written (the CLI prints a line)."""
    executor = executor or LocalExecutor()
    out_folder = Path(out)
    out_folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    rules, close_rules = read_rules(request.fusion_rule), read_rules(request.close_fusion_rule)
    quant = read_rules(request.quant_fusion_rule)
    if quant.is_folder:
        raise ValueError(f"{request.quant_fusion_rule}: -q takes one quant fusion rule, not a folder")
    plan = plan_runs(executor.views(request.my, request.golden, request.step), rules)
    ts = timestamp()
    builder = SummaryBuilder(request.my, request.golden, verdict)
    for skipped in plan.skipped:
        builder.add_not_compared(skipped.key, skipped.reason)
    tasks = tasks_of(plan, request, rules, close_rules, quant, builder)
    lost = False

    def on_outcome(outcome: RunOutcome) -> None:
        nonlocal lost
        if outcome.report is None:
            lost = lost or outcome.lost
            entry = builder.add_not_compared(outcome.key, outcome.reason or "not compared", location=outcome.location)
        else:
            csv = write_run_csv(outcome.report, out_folder / run_result_file_name(outcome.key.label, ts))
            entry = builder.add_report(outcome.key, outcome.report, csv, outcome.location)
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

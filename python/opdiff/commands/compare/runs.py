"""`opdiff compare` on many runs: a dump tree (or a folder of rules, or ``--scheduler``) goes to
opdiff.runs; one CSV per run and ``summary_{ts}.json`` are written (docs/many-runs.md)."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Dict, Optional, Sequence, Tuple

from opdiff.commands.errors import print_error
from opdiff.commands.exit_codes import ExitCode

if TYPE_CHECKING:
    from rich.console import Console

    from opdiff.results.runs_summary import RunEntry, RunsSummary
    from opdiff.results.verdict import Verdict
    from opdiff.runs.executor import Executor
    from opdiff.runs.job import FinishedRun, RunsRequest, RunWriter


def wants_many_runs(args: argparse.Namespace) -> bool:
    """A cluster, a folder of rules, a side that holds more than one run, or a golden of numbered
    steps against a tree or a step folder: the many-run path."""
    from opdiff.runs.tree import view_side

    if args.scheduler:
        return True
    if any(path is not None and path.is_dir() for path in (args.fusion_rule_file, args.close_fusion_rule_file)):
        return True
    my, golden = (view_side(str(side), args.step) for side in (args.my_dump_path, args.golden_dump_path))
    if any(view.is_tree and len(view.runs) > 1 for view in (my, golden)):
        return True
    # A golden of numbered steps meets a tree, or a step folder, step by step.
    return bool(golden.steps) and (my.is_tree or (my.single is not None and Path(my.single).name.isdigit()))


def run_many(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape

    from opdiff.graph import GraphFormatError
    from opdiff.runs.cluster import ClusterError
    from opdiff.runs.job import compare_runs

    errors, console = Console(stderr=True), Console()
    executor: Optional[Executor] = None
    try:
        request, verdict, formats = _request(args)
        executor = _executor(args, errors)
        for warning in getattr(executor, "warnings", ()):
            errors.print(f"[yellow]warning:[/] {warning}", soft_wrap=True)
        summary = compare_runs(request, args.output, verdict=verdict, executor=executor, on_run=_run_printer(console),
                               per_run=per_run_writer(args, formats, verdict),
                               on_warning=lambda warning: errors.print(f"[yellow]warning:[/] {escape(warning)}", soft_wrap=True))
    except (ValueError, OSError, GraphFormatError) as error:
        print_error(f"{error}", errors)
        return ExitCode.BAD_INPUT
    except ClusterError as error:
        print_error(f"{error}", errors)
        return ExitCode.CLUSTER_LOST
    finally:
        close = getattr(executor, "close", None)
        if close is not None:
            close()
    return _report(args, summary, formats, console)


def _request(args: argparse.Namespace) -> Tuple[RunsRequest, Optional[Verdict], Sequence[str]]:
    """The request, verdict and report formats of the command line; ValueError for what many runs refuse."""
    from opdiff.commands.args.compare_options import compare_options
    from opdiff.commands.args.verdict import limits_of
    from opdiff.report.formats import parse_report_formats
    from opdiff.runs.job import RunsRequest

    formats = parse_report_formats(args.report)
    if "model-explorer" in formats:
        raise ValueError("--report model-explorer: not with many runs (node data is per graph); compare one run for that (-m RUN)")
    if "xlsx" in formats:
        from opdiff.report.tensor.xlsx_writer import require_xlsxwriter

        require_xlsxwriter()
    options = compare_options(args)
    limits = limits_of(args)
    if limits.statistics:
        raise ValueError(f"{', '.join(limits.statistics)}: statistics limits judge one comparison of statistics dumps, "
                         "not many runs")
    return RunsRequest(str(args.my_dump_path), str(args.golden_dump_path), options), limits.tensor, formats


def per_run_writer(args: argparse.Namespace, formats: Sequence[str], verdict: Optional[Verdict]) -> Optional[RunWriter]:
    """What ``-advisor`` and ``--report xlsx`` write for each compared run, beside its CSV and named
    after it: ``{run}_advisor_summary.txt`` and ``{run}_result_{time}.xlsx``. None when neither is asked."""
    if not args.advisor and "xlsx" not in formats:
        return None
    from opdiff.advisor.tensor_advisor import advise
    from opdiff.report.advisor_summary import write_advisor_summary
    from opdiff.report.file_names import run_advisor_summary_name
    from opdiff.report.tensor.xlsx_writer import write_xlsx_report

    def write(run: FinishedRun) -> Dict[str, Path]:
        judge = run.report.verdict(verdict)
        findings = advise(run.report, run.fusion_rule, verdict=judge, ignore_ops=args.ignore_ops) if args.advisor else []
        files: Dict[str, Path] = {}
        if args.advisor:
            files["advisor"] = write_advisor_summary(findings, run.csv.parent, name=run_advisor_summary_name(run.label))
        if "xlsx" in formats:
            files["xlsx"] = write_xlsx_report(run.report, run.csv.with_suffix(".xlsx"), findings, judge)
        return files

    return write


def _run_printer(console: Console) -> Callable[[RunEntry], None]:
    """A line per run as its CSV is written (or as it is found not compared)."""
    from rich.markup import escape

    def on_run(entry: RunEntry) -> None:
        if "mapping" in entry.files:
            console.print(f"  {escape(entry.label)}: mapping {escape(entry.files['mapping'].name)}")
            return
        if entry.csv is None:
            console.print(f"  [dim]{escape(entry.label)}: not compared: {escape(entry.reason or '')}[/]")
            return
        first = f", first at {escape(entry.first_failure.tensor)}" if entry.first_failure else ""
        colour = "red" if entry.failed else "green"
        console.print(f"  {escape(entry.label)}: {entry.compared} compared, [{colour}]{entry.failed} fail[/]{first}")

    return on_run


def _report(args: argparse.Namespace, summary: RunsSummary, formats: Sequence[str], console: Console) -> int:
    """The summary on the console (and as HTML when asked), and the exit code it gives."""
    from opdiff.report.runs.console import print_summary
    from opdiff.results.runs_summary import JobEnd

    if "html" in formats and summary.path is not None:
        from opdiff.report.runs.html_writer import write_runs_html

        write_runs_html(summary, summary.path.with_suffix(".html"))
        console.print(f"html report: {summary.path.with_suffix('.html')}")
    print_summary(summary, console)
    if summary.end is JobEnd.INTERRUPTED:
        return ExitCode.INTERRUPTED
    if summary.end is JobEnd.CLUSTER_LOST:
        return ExitCode.CLUSTER_LOST
    if summary.runs and len(summary.not_compared) == len(summary.runs):
        return ExitCode.BAD_INPUT  # no run could be read: each one's reason is in the summary
    if (args.fail or args.fail_under) and summary.failing:
        return ExitCode.THRESHOLDS
    return ExitCode.OK


def _executor(args: argparse.Namespace, errors: Console) -> Executor:
    """The local executor, or a connected cluster executor (warning about plain tcp:// beyond loopback).
    ValueError for a configuration this client cannot connect with; ClusterError when the scheduler
    cannot be reached."""
    if not args.scheduler:
        from opdiff.runs.local import LocalExecutor

        return LocalExecutor()
    if importlib.util.find_spec("distributed") is None:
        raise ValueError("--scheduler needs Dask distributed: pip install \"opdiff[cluster]\"")
    from opdiff.runs.cluster import ClusterExecutor
    from opdiff.runs.security import client_security, plain_address_warning

    _quiet_dask_logs()
    warning = plain_address_warning(args.scheduler)
    if warning:
        errors.print(f"[yellow]warning:[/] {warning}", soft_wrap=True)
    security = client_security(args.scheduler, args.tls_ca_file, args.tls_cert, args.tls_key)
    return ClusterExecutor(args.scheduler, security, lost_after=args.lost_after)


def _quiet_dask_logs() -> None:
    """Dask logs its retries and tracebacks on stderr (a lost scheduler, a closed connection); the
    command says what happened in its own lines, so only Dask's critical messages stay."""
    import logging

    import distributed  # noqa: F401  # its import configures its loggers, some with their own levels

    for name in list(logging.root.manager.loggerDict):
        if name == "distributed" or name.startswith("distributed."):
            logging.getLogger(name).setLevel(logging.CRITICAL)

"""The end of `opdiff compare`, for a result of either family: judge it, print it, advise, write the
report formats, and choose the exit code. What differs between families is one entry of
``FAMILIES``; the steps are the same."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence

from rich.console import Console

from opdiff.commands.args.verdict import Limits
from opdiff.commands.compare.statistics import judge_statistics, print_statistics, statistics_findings
from opdiff.commands.errors import print_error
from opdiff.commands.exit_codes import ExitCode
from opdiff.graph import FusionMap
from opdiff.results.findings import Finding
from opdiff.results.protocol import Result, ResultFamily


@dataclass(frozen=True)
class Family:
    """How `opdiff compare` judges, shows and advises on one family of results."""

    # the verdict for the flags; ValueError when they do not apply to this family
    judge: Callable[[Any, Limits, argparse.Namespace], Any]
    show: Callable[[Any, Console, Any], None]
    advise: Callable[[Any, Optional[FusionMap], Any, argparse.Namespace], List[Finding]]


def _judge_tensors(report: Any, limits: Limits, args: argparse.Namespace) -> Any:
    if limits.statistics:
        raise ValueError(f"{', '.join(limits.statistics)}: statistics metrics apply to statistics dumps only")
    return report.verdict(limits.tensor)


def _show_tensors(report: Any, console: Console, judge: Any) -> None:
    from opdiff.report.tensor.console import print_report

    print_report(report, console, judge, csv_path=str(report.csv_path))
    from opdiff.results.isolation import is_isolated_report

    if is_isolated_report(report):
        from opdiff.report.tensor.console import print_local_failures

        print_local_failures(report, console)


def _advise_tensors(report: Any, fusion_rule: Optional[FusionMap], judge: Any, args: argparse.Namespace) -> List[Finding]:
    from opdiff.advisor.tensor_advisor import advise

    return advise(report, fusion_rule, verdict=judge, ignore_ops=args.ignore_ops)


FAMILIES: Dict[ResultFamily, Family] = {
    ResultFamily.TENSOR: Family(_judge_tensors, _show_tensors, _advise_tensors),
    ResultFamily.STATISTICS: Family(judge_statistics, print_statistics, statistics_findings),
}


def finish_compare(result: Result, args: argparse.Namespace, formats: Sequence[str], limits: Limits,
                   fusion_rule: Optional[FusionMap]) -> int:
    """Print and write the reports of `result` under the verdict the flags ask for; exit 3 when a
    row fails a given limit (or any row fails, with ``--fail``), 130 when the run was interrupted."""
    from opdiff.report.formats import write_report_formats

    family = FAMILIES[result.family]
    try:
        judge = family.judge(result, limits, args)
    except ValueError as error:
        print_error(f"{error}")
        return ExitCode.BAD_INPUT
    console = Console()
    family.show(result, console, judge)
    findings: List[Finding] = []
    if args.advisor or {"json", "html"} & set(formats):  # the JSON and HTML reports always carry the findings
        findings = family.advise(result, fusion_rule, judge, args)
    if args.advisor:
        from opdiff.report.advisor_summary import write_advisor_summary
        from opdiff.report.tensor.console import print_findings

        print_findings(findings, console)
        console.print(f"advisor summary: {write_advisor_summary(findings, args.output)}", soft_wrap=True)
    for line in write_report_formats(result, formats, findings, judge):
        console.print(line, soft_wrap=True)
    if not result.complete:
        return ExitCode.INTERRUPTED
    asked = args.fail or limits.tensor_texts or limits.statistics
    if asked and result.first_failure(judge) is not None:
        return ExitCode.THRESHOLDS
    return ExitCode.OK

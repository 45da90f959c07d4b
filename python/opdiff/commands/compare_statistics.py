"""The end of `opdiff compare` when a side holds statistics dumps: the console report, the advisor,
the report formats and the exit code (commands/compare.py dispatches here)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, List, Sequence, Tuple

from opdiff.commands.errors import print_error
from opdiff.commands.exit_codes import ExitCode

if TYPE_CHECKING:
    from opdiff.report.statistics_result import StatisticsReport


def split_fail_under(texts: Sequence[str]) -> Tuple[List[str], List[str]]:
    """``--fail-under`` texts as (those for tensor metrics, those for statistics metrics); a
    statistics limit that does not parse is a ValueError (exit 2) before anything is compared."""
    from opdiff.report.statistics_verdict import StatisticsThreshold, is_statistics_threshold

    statistics = [text for text in texts if is_statistics_threshold(text)]
    for text in statistics:
        StatisticsThreshold.parse(text)
    return [text for text in texts if not is_statistics_threshold(text)], statistics


def refuse_statistics_limits(limits: Sequence[str]) -> int:
    """A full-dump comparison given statistics limits: exit 2, saying so."""
    print_error(f"{', '.join(limits)}: statistics metrics apply to statistics dumps only")
    return ExitCode.BAD_INPUT


def finish_statistics_compare(report: StatisticsReport, args: argparse.Namespace, formats: Sequence[str], limits: Sequence[str]) -> int:
    """Print and write the reports of a StatisticsReport under its verdict (the `limits` given, or
    the defaults); exit 3 when a row fails a given limit (or any row fails, with ``--fail``), 2 when
    a limit names a tensor metric or another verdict is asked for."""
    from rich.console import Console

    from opdiff.report.statistics_console import print_statistics_report
    from opdiff.report.statistics_verdict import StatisticsVerdict

    if args.fail_under:  # what is left there names tensor metrics
        print_error(f"{', '.join(args.fail_under)}: not a statistics metric; statistics dumps take MaxNormDiff, "
                    "MinNormDiff, MeanNormDiff, Max/Min/MeanAbsDiff, Max/Min/MeanRelDiff, NanInfCountDiff")
        return ExitCode.BAD_INPUT
    if getattr(args, "thresholds", "default") != "default":
        print_error("--thresholds chooses a tensor verdict; statistics dumps have their own (docs/scenario-statistics.md)")
        return ExitCode.BAD_INPUT
    verdict = report.verdict(StatisticsVerdict.from_texts(limits) if limits else None)
    if report.csv_path is not None and verdict.thresholds:
        report.to_csv(report.csv_path, verdict)  # the Result column under the user's limits
    console = Console()
    print_statistics_report(report, console, verdict, csv_path=None if report.csv_path is None else str(report.csv_path))
    findings = []
    if args.advisor or {"json", "html"} & set(formats):
        from opdiff.advisor.statistics_advisor import advise_statistics

        findings = advise_statistics(report, verdict)
    if args.advisor:
        from opdiff.report.advisor_summary import write_advisor_summary
        from opdiff.report.console import print_findings

        print_findings(findings, console)
        console.print(f"advisor summary: {write_advisor_summary(findings, args.output)}", soft_wrap=True)
    if report.csv_path is not None:
        from opdiff.report.formats import STATISTICS_WRITERS

        for name in formats:
            if name == "xlsx":
                console.print("xlsx report: not written for statistics dumps (the csv, json and html reports are)")
            elif name in STATISTICS_WRITERS:
                path = STATISTICS_WRITERS[name](report, report.csv_path.with_suffix(f".{name}"), findings, verdict)
                console.print(f"{name} report: {path}", soft_wrap=True)
    if not report.complete:
        return ExitCode.INTERRUPTED
    if (verdict.thresholds or getattr(args, "fail", False)) and report.first_failure(verdict) is not None:
        return ExitCode.THRESHOLDS
    return ExitCode.OK


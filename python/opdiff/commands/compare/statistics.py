"""`opdiff compare` when a side holds statistics dumps: its limits, its verdict, its console report
and its advisor (commands/compare/finish.py's entry for the statistics family)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, List, Optional

if TYPE_CHECKING:
    from rich.console import Console

    from opdiff.commands.args.verdict import Limits
    from opdiff.graph import FusionMap
    from opdiff.results.findings import Finding
    from opdiff.results.statistics_report import StatisticsReport
    from opdiff.results.statistics_verdict import StatisticsVerdict


def judge_statistics(report: StatisticsReport, limits: Limits, args: argparse.Namespace) -> StatisticsVerdict:
    """The statistics verdict for the flags (the limits given, or the defaults); ValueError when a
    limit names a tensor metric or another verdict is asked for. Under given limits, the CSV is
    written again: its Result column follows them."""
    from opdiff.results.statistics_verdict import StatisticsVerdict

    if limits.tensor_texts:
        raise ValueError(f"{', '.join(limits.tensor_texts)}: not a statistics metric; statistics dumps take MaxNormDiff, "
                         "MinNormDiff, MeanNormDiff, Max/Min/MeanAbsDiff, Max/Min/MeanRelDiff, NanInfCountDiff")
    if getattr(args, "thresholds", "default") != "default":
        raise ValueError("--thresholds chooses a tensor verdict; statistics dumps have their own (docs/scenario-statistics.md)")
    verdict = report.verdict(StatisticsVerdict.from_texts(limits.statistics) if limits.statistics else None)
    if report.csv_path is not None and verdict.thresholds:
        report.to_csv(report.csv_path, verdict)  # the Result column under the user's limits
    return verdict


def print_statistics(report: StatisticsReport, console: Console, verdict: StatisticsVerdict) -> None:
    from opdiff.report.statistics.console import print_statistics_report

    print_statistics_report(report, console, verdict, csv_path=None if report.csv_path is None else str(report.csv_path))


def statistics_findings(report: StatisticsReport, fusion_rule: Optional[FusionMap], verdict: StatisticsVerdict,
                        args: argparse.Namespace) -> List[Finding]:
    from opdiff.advisor.statistics_advisor import advise_statistics

    return advise_statistics(report, verdict)

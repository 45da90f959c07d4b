"""The end of `opdiff compare` when a side holds statistics dumps: the console report, the advisor,
the report formats and the exit code (commands/compare.py dispatches here)."""

from __future__ import annotations

import argparse
from typing import Sequence

EXIT_OK, EXIT_BAD_INPUT, EXIT_THRESHOLDS, EXIT_INTERRUPTED = 0, 2, 3, 130


def finish_statistics_compare(report, args: argparse.Namespace, formats: Sequence[str], verdict,
                              tensor_thresholds: Sequence[object]) -> int:
    """Print and write the reports of a StatisticsReport under `verdict`; exit 3 when a user's
    threshold fails a row, 2 when a threshold names a tensor metric."""
    from rich.console import Console

    from opdiff.report.statistics_console import print_statistics_report

    if tensor_thresholds:
        names = ", ".join(getattr(t, "metric", str(t)) for t in tensor_thresholds)
        Console(stderr=True).print(f"[red]error:[/] {names}: not a statistics metric; statistics dumps take MaxNormDiff, "
                                   "MinNormDiff, MeanNormDiff, Max/Min/MeanAbsDiff, Max/Min/MeanRelDiff, NanInfCountDiff",
                                   highlight=False)
        return EXIT_BAD_INPUT
    if report.csv_path is not None and verdict.thresholds:
        report.to_csv(report.csv_path, verdict)  # the Result column under the user's limits
    console = Console()
    print_statistics_report(report, console, verdict, csv_path=None if report.csv_path is None else str(report.csv_path))
    findings = []
    if args.advisor or {"json", "html"} & set(formats):
        from opdiff.statistics_advisor import advise_statistics

        findings = advise_statistics(report, verdict)
    if args.advisor:
        from opdiff.advisor import write_advisor_summary
        from opdiff.report.console import print_findings

        print_findings(findings, console)
        console.print(f"advisor summary: {write_advisor_summary(findings, args.output)}")
    if report.csv_path is not None:
        for name in formats:
            writer = _writer(name)
            if name == "xlsx":
                console.print("xlsx report: not written for statistics dumps (the csv, json and html reports are)")
            elif writer is not None:
                path = writer(report, report.csv_path.with_suffix(f".{name}"), findings, verdict)
                console.print(f"{name} report: {path}")
    if not report.complete:
        return EXIT_INTERRUPTED
    if verdict.thresholds and report.failing(verdict):
        return EXIT_THRESHOLDS
    return EXIT_OK


def _writer(name: str):
    if name == "json":
        from opdiff.report.statistics_json import write_statistics_json

        return write_statistics_json
    if name == "html":
        from opdiff.report.statistics_html import write_statistics_html

        return write_statistics_html
    return None

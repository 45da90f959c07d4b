"""Cross-check `opdiff compare` against the reference tool's `msaccucmp.py compare`, as a black box,
on the same generated dumps: the result CSVs must agree row by row (same rows and columns; metrics
within 1e-4 relative, or the same non-numeric token; every other cell identical).

    bench/reference_tool/build.sh            # once: the libascend_dump_parser.so stand-in
    python bench/crosscheck_reference_compare.py [--reference-venv /work/venv-ref] [--keep DIR]

Cases (tests/support/side_by_side_cases.py): NPU vs golden through a generated fusion rule (run with no
extra flag, -overflow_detection, -alg 0 1 4 and -s), NPU vs NPU by op name, the two real atc
JSON samples of tests/data/atc-json with dumps generated to match them, and the differences found
on TensorFlow-converted models (groups of several NPU ops, dumps whose original shape or origin
format is not the golden's; tests.support.difference_cases). Every difference is listed
with its explanation (bench/side_by_side/explanations.py); exit code 1 when an unexplained
difference remains.
"""

from __future__ import annotations

import argparse
import io
import shutil
import sys
import tempfile
from pathlib import Path
from typing import List, Mapping, Tuple

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests package's helpers, run from anywhere

from side_by_side.csv_diff import Agreement, CsvDiff, diff_csvs
from side_by_side.explanations import explain, explain_row
from side_by_side.measure import run_measured
from side_by_side.reference import DEFAULT_VENV, ReferenceTool, opdiff_compare_command, result_csv

from tests.support.side_by_side_cases import Case, all_cases, difference_cases

ATC_SAMPLES = sorted((Path(__file__).resolve().parents[1] / "tests" / "data" / "atc-json").glob("*.json"))


def run_both(tool: ReferenceTool, case: Case, flags: Tuple[str, ...], out: Path) -> Tuple[CsvDiff, str]:
    """Run both tools on `case` with `flags`; the diff of their CSVs and a line on exit codes."""
    ours_dir, theirs_dir = out / "opdiff", out / "reference"
    theirs = run_measured(tool.compare_command(case.my, case.golden, theirs_dir, case.rule, flags), env=tool.environment())
    ours = run_measured(opdiff_compare_command(case.my, case.golden, ours_dir, case.rule, flags))
    theirs_csv, ours_csv = result_csv(theirs_dir), result_csv(ours_dir)
    if theirs_csv is None or ours_csv is None:
        missing = "reference" if theirs_csv is None else "opdiff"
        raise RuntimeError(f"{case.name} {flags}: {missing} wrote no result CSV\n"
                           f"{(theirs if theirs_csv is None else ours).tail}")
    return diff_csvs(ours_csv, theirs_csv), f"exit codes: opdiff {ours.exit_code}, reference {theirs.exit_code}"


def print_differences(console: Console, label: str, diff: CsvDiff, deliberate: Mapping[str, str]) -> int:
    """Every differing cell, row or column with its explanation (a documented rule, or the case's
    own word on a row where opdiff departs on purpose: `deliberate`, by TensorIndex); returns the
    unexplained count."""
    table = Table(title=f"differences: {label}", show_lines=True, title_justify="left")
    for column in ("row (Index, NPUDump, TensorIndex)", "column", "opdiff", "reference", "verdict", "explanation"):
        table.add_column(column, overflow="fold")
    unexplained = 0
    if not diff.same_columns:
        unexplained += 1
        table.add_row("header", "", " | ".join(diff.header_ours), " | ".join(diff.header_theirs), "different", "[red]unexplained[/]")
    for ours_only, rows in ((True, diff.only_ours), (False, diff.only_theirs)):
        for key, row in rows:
            why = explain_row(ours_only, row) or deliberate.get(row.get("TensorIndex", ""))
            unexplained += why is None
            table.add_row(", ".join(key[:2] + key[3:4]), "(row)", "present" if ours_only else "missing",
                          "missing" if ours_only else "present", "[yellow]different[/]", why or "[red]unexplained[/]")
    if diff.order_differs:
        unexplained += 1
        table.add_row("(all)", "(row order)", "", "", "different", "[red]unexplained[/]")
    for cell in diff.differences:
        why = explain(cell) or deliberate.get(cell.key[3])
        if why is None and cell.agreement is Agreement.DIFFERENT:
            unexplained += 1
        verdict = "[green]within tolerance[/]" if cell.agreement is Agreement.WITHIN_TOLERANCE else "[yellow]different[/]"
        table.add_row(", ".join(cell.key[:2] + cell.key[3:4]), cell.column, cell.ours, cell.theirs, verdict,
                      why or ("" if cell.agreement is Agreement.WITHIN_TOLERANCE else "[red]unexplained[/]"))
    if table.row_count:
        console.print(table)
    return unexplained


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference-venv", type=Path, default=DEFAULT_VENV, help="virtual environment with mindstudio-probe")
    parser.add_argument("--keep", type=Path, help="write cases and results here and keep them (default: a temporary folder)")
    args = parser.parse_args()

    console = Console(width=200)
    tool = ReferenceTool.locate(args.reference_venv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="opdiff-crosscheck-"))
    try:
        cases = all_cases(root / "cases", ATC_SAMPLES) + difference_cases(root / "cases" / "differences")
        summary = Table(title="opdiff compare vs msaccucmp compare: result CSVs row by row")
        for column in ("case", "flags", "rows opdiff/ref", "matched", "columns", "cells identical", "within tol.",
                       "different", "unexplained", "exit codes"):
            summary.add_column(column)
        details: List[Tuple[str, CsvDiff, Mapping[str, str]]] = []
        for case in cases:
            for number, flags in enumerate(case.runs):
                label = f"{case.name} {' '.join(flags)}".strip()
                diff, codes = run_both(tool, case, flags, root / "results" / f"{case.my.parent.name}-{number}")
                details.append((label, diff, case.deliberate))
                unexplained = print_differences(console, label, diff, case.deliberate)
                summary.add_row(case.name, " ".join(flags) or "-", f"{diff.rows_ours}/{diff.rows_theirs}", str(diff.matched_rows),
                                "same" if diff.same_columns else "[red]differ[/]", str(diff.cells[Agreement.IDENTICAL]),
                                str(diff.cells[Agreement.WITHIN_TOLERANCE]), str(diff.cells[Agreement.DIFFERENT]),
                                f"[red]{unexplained}[/]" if unexplained else "0", codes)
                if unexplained:
                    summary.rows[-1].style = "red"
        console.print(summary)
        total_unexplained = sum(print_differences(Console(file=io.StringIO()), label, diff, deliberate)
                                for label, diff, deliberate in details)
        console.print(f"{len(details)} runs; {total_unexplained} unexplained differences")
        return 1 if total_unexplained else 0
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

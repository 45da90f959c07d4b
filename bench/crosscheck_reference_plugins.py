"""Cross-check opdiff's plug-ins (-c DIR, -a, -alg Name) against the reference tool's, as a black box:
both tools run on the same generated dumps with the same plug-in folder, and their result CSVs must
agree column for column (the built-in metrics within the compare cross-check's tolerance; the plug-in
columns, the same scripts on the same arrays, identical).

    bench/reference_tool/build.sh            # once: the libascend_dump_parser.so stand-in
    python bench/crosscheck_reference_plugins.py [--reference-venv /work/venv-ref] [--keep DIR]

The folder holds the reference's own ten metric scripts under other names (Ref{Name}, copied from the
installed reference at run time) and opdiff's test plug-ins (tests/support/plugin_folders.py): one
written against the reference's import names and reading an -a option, one that raises, one that
returns None, one that returns a number instead of text; and a format converter NC1HWC0 to NCHW that
flips the sign, replacing the built-in conversion. Exit code 1 when a cell differs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Tuple

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests package's helpers, run from anywhere

from crosscheck_reference_compare import print_differences, run_both
from side_by_side.crosscheck_run import crosscheck_main
from side_by_side.csv_diff import Agreement
from side_by_side.reference import ReferenceTool

from opdiff.numerics.schema import ALGORITHMS
from tests.support.plugin_folders import REFERENCE_PREFIX, write_converter, write_plugin_folder
from tests.support.side_by_side_cases import fusion_case, npu_vs_npu_case

OWN = ("OwnPeak", "Boom", "Nothing", "NotText")


def plugin_flags(folder: Path) -> Tuple[str, ...]:
    """Every built-in and every plug-in of `folder`, built-ins first, as one -alg list (the form the
    reference takes names in), with an -a option for the one that reads it."""
    names = [str(k) for k in range(len(ALGORITHMS))] + [REFERENCE_PREFIX + name for name in ALGORITHMS] + list(OWN)
    return ("-c", str(folder), "-alg", ",".join(names), "-a", "OwnPeak:scale=2")


def check(tool: ReferenceTool, root: Path, console: Console) -> int:
    folder = write_plugin_folder(root / "plugins", own=OWN, reference=True)
    write_converter(folder, "flipped")  # replaces the built-in NC1HWC0 to NCHW: the values change, in both tools
    flags = plugin_flags(folder)
    cases = [fusion_case(root / "cases" / "fusion"), npu_vs_npu_case(root / "cases" / "npu")]
    summary = Table(title="opdiff vs msaccucmp with the same plug-in folder: result CSVs column for column")
    for column in ("case", "rows opdiff/ref", "columns", "cells identical", "within tol.", "different", "unexplained", "exit codes"):
        summary.add_column(column)
    total = 0
    headers: List[str] = []
    for number, case in enumerate(cases):
        diff, codes = run_both(tool, case, flags, root / "results" / str(number))
        unexplained = print_differences(console, case.name, diff, case.deliberate)
        total += unexplained
        summary.add_row(case.name, f"{diff.rows_ours}/{diff.rows_theirs}", "same" if diff.same_columns else "[red]differ[/]",
                        str(diff.cells[Agreement.IDENTICAL]), str(diff.cells[Agreement.WITHIN_TOLERANCE]),
                        str(diff.cells[Agreement.DIFFERENT]), str(unexplained), codes)
        headers.append(" ".join(diff.header_ours))
    console.print(summary)
    console.print(f"columns: {headers[0]}")
    console.print(f"{len(cases)} runs; {total} unexplained differences")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(crosscheck_main(__doc__ or "", "opdiff-crosscheck-plugins-", check))

"""Cross-check `opdiff compare -ffts` against the reference's, as a black box: FFTS+ against FFTS+
dumps (manual-mode slices, op_lxsliceN, on both sides, one slice faulty), compared with and without
-ffts by both tools; the result CSVs must agree row by row as in crosscheck_reference_compare.py.

    bench/reference_tool/build.sh            # once: the libascend_dump_parser.so stand-in
    python bench/crosscheck_reference_ffts.py [--reference-venv /work/venv-ref] [--keep DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests package's helpers, run from anywhere

from crosscheck_reference_compare import print_differences, run_both
from side_by_side.crosscheck_run import crosscheck_main
from side_by_side.reference import ReferenceTool

from tests.support.side_by_side_cases import ffts_manual_case


def check(tool: ReferenceTool, root: Path, console: Console) -> int:
    case = ffts_manual_case(root / "case")
    total = 0
    for number, flags in enumerate(case.runs):
        diff, codes = run_both(tool, case, flags, root / "results" / str(number))
        unexplained = print_differences(console, f"{case.name} {' '.join(flags)}", diff, case.deliberate)
        total += unexplained
        console.print(f"{' '.join(flags) or '(no flag)'}: rows opdiff/reference {diff.rows_ours}/{diff.rows_theirs}, "
                      f"{diff.matched_rows} matched, columns {'same' if diff.same_columns else 'differ'}, "
                      f"{unexplained} unexplained; {codes}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(crosscheck_main(__doc__ or "", "opdiff-crosscheck-ffts-", check))

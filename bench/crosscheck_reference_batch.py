"""opdiff's many-run compare beside the reference's batch mode (msaccucmp.py compare with -f a folder
of fusion rules and -m the {time} folder: one CSV per model and device, each model's largest step),
on a generated tree of the demo network (devices x steps, one run faulty), row by row.

    python bench/crosscheck_reference_batch.py [--devices 2] [--steps 2] [--venv /work/venv-ref]

For every CSV the reference writes, opdiff's CSV of the same run ({device}_{model}_{step}) is read
with bench/side_by_side/csv_diff.py; the table says whether the rows agree. opdiff compares every
step (the reference only the largest); those extra runs are listed, not diffed.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests package's helpers, run from anywhere

from side_by_side.csv_diff import Agreement, diff_csvs
from side_by_side.reference import DEFAULT_VENV, ReferenceTool

from tests.support.dump_tree import Fault, write_dump_tree

TIMEOUT = 600


def _by_run(folder: Path) -> Dict[str, Path]:
    return {path.name.split("_result_")[0]: path for path in folder.glob("*_result_*.csv")}


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", type=int, default=2)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    args = parser.parse_args(list(argv))
    reference = ReferenceTool.locate(args.venv)
    base = Path(tempfile.mkdtemp(prefix="opdiff-batch-"))
    try:
        tree = write_dump_tree(base, devices=tuple(range(args.devices)), steps=tuple(range(args.steps)),
                               fault=Fault(device=args.devices - 1, step=args.steps - 1))
        rules = base / "rules"
        rules.mkdir()
        shutil.copy(tree.rule, rules / tree.rule.name)
        theirs, ours = base / "reference", base / "opdiff"
        done = subprocess.run(reference.compare_command(tree.root, tree.golden, theirs, rules), env=reference.environment(),
                              capture_output=True, text=True, timeout=TIMEOUT)
        if done.returncode not in (0, 2):  # the reference exits 2 after some comparisons (its rows are written)
            raise SystemExit(f"the reference failed ({done.returncode}): {done.stderr[-2000:]}")
        subprocess.run([sys.executable, "-m", "opdiff", "compare", "-m", str(tree.root), "-g", str(tree.golden),
                        "-f", str(rules), "-out", str(ours)], check=True, capture_output=True, timeout=TIMEOUT)
        their_runs, our_runs = _by_run(theirs), _by_run(ours)
        print(f"{len(our_runs)} runs compared by opdiff, {len(their_runs)} by the reference (each model's largest step)")
        print()
        print("| run | reference rows | opdiff rows | rows matched | cells: identical / within tolerance / different | agree |")
        print("| --- | --- | --- | --- | --- | --- |")
        agree = True
        for label in sorted(their_runs):
            if label not in our_runs:
                print(f"| {label} | | missing | | | NO |")
                agree = False
                continue
            diff = diff_csvs(our_runs[label], their_runs[label])
            counts = " / ".join(str(diff.cells.get(kind, 0)) for kind in Agreement)
            agree = agree and diff.agrees
            print(f"| {label} | {diff.rows_theirs} | {diff.rows_ours} | {diff.matched_rows} | {counts} | "
                  f"{'yes' if diff.agrees else 'NO'} |")
        extra = sorted(set(our_runs) - set(their_runs))
        if extra:
            print(f"\nopdiff only (steps the reference's batch mode leaves out): {', '.join(extra)}")
        return 0 if agree else 1
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

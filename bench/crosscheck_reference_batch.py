"""opdiff's many-run compare beside the reference's batch mode (msaccucmp.py compare with -f a folder
of fusion rules and -m the {time} folder: one CSV per model and device, each model's largest step),
row by row, on two generated trees:

* demo: the demo network over devices x steps, one run faulty, one atc JSON;
* training: a TensorFlow training run's NPU side (tests/support/tf_training_tree.py): three graphs
  (variables' initialisation, the training step with forward, backward and SGD updates, a summary
  graph), one step each, the training graph's dump folder a second later than its graph's name
  (both tools take its rule by the trailing number, with a warning), a folder of three atc JSONs
  and a flat .npy golden folder; one gradient op faulty.

    python bench/crosscheck_reference_batch.py [--case demo|training|both] [--devices 2] [--steps 2]
                                               [--venv /work/venv-ref]

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
from typing import Dict, List, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests package's helpers, run from anywhere

from side_by_side.csv_diff import Agreement, diff_csvs
from side_by_side.reference import DEFAULT_VENV, ReferenceTool

from tests.support.dump_tree import Fault, write_dump_tree
from tests.support.tf_training_tree import write_training_tree

TIMEOUT = 600
Case = Tuple[Path, Path, Path]  # the {time} folder, the golden folder, the folder of rules


def _by_run(folder: Path) -> Dict[str, Path]:
    return {path.name.split("_result_")[0]: path for path in folder.glob("*_result_*.csv")}


def demo_case(base: Path, devices: int, steps: int) -> Case:
    tree = write_dump_tree(base, devices=tuple(range(devices)), steps=tuple(range(steps)),
                           fault=Fault(device=devices - 1, step=steps - 1))
    rules = base / "rules"
    rules.mkdir()
    shutil.copy(tree.rule, rules / tree.rule.name)
    return tree.root, tree.golden, rules


def training_case(base: Path) -> Case:
    tree = write_training_tree(base, steps=(0,), rule_form="json", golden_steps=False)
    return tree.root, tree.golden, tree.rules


def _run_both(reference: ReferenceTool, case: Case, base: Path) -> Tuple[Dict[str, Path], Dict[str, Path], List[str]]:
    """Both tools on `case`: each one's CSVs by run, and the reference's warnings."""
    root, golden, rules = case
    theirs, ours = base / "reference", base / "opdiff"
    done = subprocess.run(reference.compare_command(root, golden, theirs, rules), env=reference.environment(),
                          capture_output=True, text=True, timeout=TIMEOUT)
    if done.returncode not in (0, 2):  # the reference exits 2 after some comparisons (its rows are written)
        raise SystemExit(f"the reference failed ({done.returncode}): {done.stderr[-2000:]}")
    warnings = [line.strip() for line in (done.stdout + done.stderr).splitlines() if "WARNING" in line and "same time" in line]
    subprocess.run([sys.executable, "-m", "opdiff", "compare", "-m", str(root), "-g", str(golden),
                    "-f", str(rules), "-out", str(ours)], check=True, capture_output=True, timeout=TIMEOUT)
    return _by_run(theirs), _by_run(ours), warnings


def crosscheck(name: str, reference: ReferenceTool, case: Case, base: Path) -> bool:
    """Print the table of one case; True when every run the reference compared agrees."""
    their_runs, our_runs, warnings = _run_both(reference, case, base)
    print(f"## {name}: {len(our_runs)} runs compared by opdiff, {len(their_runs)} by the reference (each model's largest step)")
    for warning in warnings:
        print(f"reference: {warning}")
    print()
    print("| run | reference rows | opdiff rows | rows matched | cells: identical / within tolerance / different | agree |")
    print("| --- | --- | --- | --- | --- | --- |")
    agree = bool(their_runs)
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
    print()
    return agree


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--case", choices=("demo", "training", "both"), default="both")
    parser.add_argument("--devices", type=int, default=2)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    args = parser.parse_args(list(argv))
    reference = ReferenceTool.locate(args.venv)
    base = Path(tempfile.mkdtemp(prefix="opdiff-batch-"))
    try:
        agree = True
        if args.case in ("demo", "both"):
            agree = crosscheck("demo", reference, demo_case(base / "demo", args.devices, args.steps), base / "demo") and agree
        if args.case in ("training", "both"):
            agree = crosscheck("training", reference, training_case(base / "training"), base / "training") and agree
        return 0 if agree else 1
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The behaviour snapshot: what `opdiff compare` writes (result CSV, JSON report, console) for a fixed
set of generated cases — the side-by-side cases with each of their flag sets, and the two demos.

Refactorings must keep it byte for byte: tests/snapshot/test_behaviour_snapshot.py compares these
hashes with the committed ones in tests/data/behaviour_snapshot.json. Only what changes from run to
run is normalised: timestamps in file names and the JSON's `created`. Every command runs in the case
folder with relative paths, so that no temporary folder name reaches an output (a table cell would
wrap it where it pleases). The runs use the scalar kernels (OPDIFF_SIMD=scalar): the vector paths sum
in another order, so their sixth decimals differ by machine (AVX2 here, AVX-512 there), within the
accuracy contract that tests/kernels checks for each path, yet enough to change a hash.

`python -m tests.support.behaviour_snapshot --update`, run from the repository root, rewrites the
committed hashes (a deliberate behaviour change, said in its commit); `--keep DIR` leaves the
normalised outputs in DIR, to diff two commits.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from tests.support import paths
from tests.support.child_env import make_pythonpath_absolute
from tests.support.side_by_side_cases import all_cases

SNAPSHOT = paths.DATA / "behaviour_snapshot.json"
ATC_SAMPLES = sorted((paths.DATA / "atc-json").glob("*.json"))
# The console is read at one fixed width; the width tests of the CLI take other widths.
CONSOLE_COLUMNS = "100"


@dataclass(frozen=True)
class Run:
    """One `opdiff` command line of the snapshot; `{root}` is the case folder."""

    name: str
    args: Sequence[str]


def snapshot_runs(root: Path) -> List[Run]:
    """Write every case under `root`; the command lines that the snapshot records, with paths
    relative to `root`."""
    runs: List[Run] = []
    samples = root / "atc-json"
    samples.mkdir(parents=True)
    for sample in ATC_SAMPLES:
        shutil.copy(sample, samples / sample.name)
    for case in all_cases(root / "cases", sorted(samples.iterdir())):
        for flags in case.runs:
            name = case.name + ("" if not flags else " " + " ".join(flags))
            args = ["compare", "-m", _relative(case.my, root), "-g", _relative(case.golden, root)]
            if case.rule is not None:
                args += ["-f", _relative(case.rule, root)]
            runs.append(Run(name, [*args, "--no-progress", "--report", "csv,json", *flags]))
    runs.append(Run("demo", ["demo", "--dir", "demo"]))
    runs.append(Run("demo --statistics", ["demo", "--statistics", "--dir", "demo-statistics"]))
    return runs


def _relative(path: Path, root: Path) -> str:
    return str(path.relative_to(root))


_STAMP_IN_NAME = re.compile(r"(?<=_)\d{14}(?=\.)")  # result_20261201120238.csv and the like
_STAMP_IN_DUMP_NAME = re.compile(r"(?<=\.)\d{16}(?=\b)")  # the demo's file-name timestamps (µs)


def normalise(text: str, root: Path) -> str:
    """The run-to-run variable parts of an output replaced by fixed tokens (an absolute path to the
    case folder should not appear; if one does, it is replaced, though a wrapped one is not)."""
    text = text.replace(str(root), "<root>")
    text = _STAMP_IN_NAME.sub("<ts>", text)
    return _STAMP_IN_DUMP_NAME.sub("<us>", text)


def _normalised_json(path: Path, root: Path) -> str:
    document = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(document, dict):
        document.pop("created", None)
    return normalise(json.dumps(document, sort_keys=True, indent=1), root)


def _outputs(folder: Path, console: str, root: Path) -> Dict[str, str]:
    """Every output of one run, normalised, by kind: console, csv (each result CSV), json."""
    outputs = {"console": normalise(console, root)}
    for path in sorted(folder.rglob("*")):
        if path.suffix == ".csv" and path.name.startswith(("result_", "statistics_result_")):
            outputs[f"csv {normalise(path.name, root)}"] = normalise(path.read_text(encoding="utf-8"), root)
        elif path.suffix == ".json" and path.name.startswith(("result_", "report_", "statistics_")):
            outputs[f"json {normalise(path.name, root)}"] = _normalised_json(path, root)
    return outputs


def run_one(run: Run, root: Path, out: Path) -> Dict[str, str]:
    """Run one command line in a fresh interpreter, in `root`; its normalised outputs."""
    out.mkdir(parents=True, exist_ok=True)
    args = list(run.args)
    if args[0] == "compare":
        args += ["-out", _relative(out, root)]
    env = {**os.environ, "COLUMNS": CONSOLE_COLUMNS, "NO_COLOR": "1", "TERM": "dumb", "OPDIFF_SIMD": "scalar"}
    env.pop("FORCE_COLOR", None)
    done = subprocess.run([sys.executable, "-m", "opdiff", *args], capture_output=True, text=True, env=env,
                          cwd=root, timeout=600)
    console = f"exit {done.returncode}\n{done.stdout}\n--- stderr\n{done.stderr}"
    written = out if args[0] == "compare" else root / args[args.index("--dir") + 1]
    return _outputs(written, console, root)


def take_snapshot(root: Path, keep: Optional[Path] = None) -> Dict[str, Dict[str, str]]:
    """The sha256 of every normalised output of every run, by run name and output kind."""
    hashes: Dict[str, Dict[str, str]] = {}
    for index, run in enumerate(snapshot_runs(root)):
        outputs = run_one(run, root, root / "out" / str(index))
        hashes[run.name] = {kind: hashlib.sha256(text.encode()).hexdigest() for kind, text in outputs.items()}
        if keep is not None:
            for kind, text in outputs.items():
                target = keep / re.sub(r"[^\w.-]+", "_", run.name) / re.sub(r"[^\w.-]+", "_", kind)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
    return hashes


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--update", action="store_true", help="rewrite tests/data/behaviour_snapshot.json")
    parser.add_argument("--keep", type=Path, help="leave the normalised outputs in this folder")
    args = parser.parse_args(argv)
    make_pythonpath_absolute()  # the runs start in their own folders
    with tempfile.TemporaryDirectory(prefix="opdiff-snapshot-") as folder:
        hashes = take_snapshot(Path(folder), args.keep)
    if args.update:
        SNAPSHOT.write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {SNAPSHOT}: {len(hashes)} runs")
        return 0
    committed = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    differing = [name for name in sorted(set(hashes) | set(committed)) if hashes.get(name) != committed.get(name)]
    for name in differing:
        print(f"differs: {name}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())

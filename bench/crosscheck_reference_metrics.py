"""Cross-check opdiff's ten reference metrics against the reference tool itself, as a black box.

The reference (msaccucmp, in the PyPI package mindstudio-probe) lives in its own virtual
environment; its metric functions are called there on the same float32 arrays (the reference
converts both sides to float32 before its metrics) and their printed strings are compared with
opdiff's values: equal within 1e-4 relative (the reference computes in float32 and prints 6
decimals), or the same non-numeric token.

    python -m venv /tmp/ref && /tmp/ref/bin/pip install mindstudio-probe==26.2.0
    python bench/crosscheck_reference_metrics.py --reference-python /tmp/ref/bin/python

Known, deliberate difference: the reference forms relative errors as |x / y - 1| in float32, which
cancels when x and y agree to ~7 digits (each term is then a multiple of 2^-23); opdiff computes
|x - y| / |y| in float32 (no cancellation). On "offset data" (values near 1000 differing by 1e-3)
AccumulatedRelativeError is 0.004000 in opdiff (the exact value) and 0.003906 in the reference.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
from rich.console import Console
from rich.table import Table

import opdiff
from opdiff.report.tensor.reference_format import format_metric

# Runs inside the reference's environment: calls each built-in algorithm on every pair.
REFERENCE_RUNNER = r"""
import json, sys, importlib, pathlib
import numpy as np
import msprobe
root = pathlib.Path(msprobe.__file__).parent / "msaccucmp"
sys.path.insert(0, str(root))
from algorithm_manager.algorithm_parameter import AlgorithmParameter
from cmp_utils.utils_type import ShapeType
names = json.loads(sys.argv[2])
data = np.load(sys.argv[1])
results = []
for i in range(len(data.files) // 2):
    x, y = data[f"x{i}"], data[f"y{i}"]
    args = AlgorithmParameter()
    args.my_output_dump_file, args.ground_truth_dump_file = "my", "golden"
    dims = x.shape
    args.shape_type = ShapeType.Scalar if sum(dims) == len(dims) else ShapeType.Tensor
    row = {}
    for name in names:
        module = importlib.import_module(f"algorithm_manager.builtin_algorithm.alg_{name}")
        try:
            row[name] = module.compare(x.ravel(), y.ravel(), args)[0]
        except Exception as error:  # the reference turns these into "NaN"
            row[name] = "NaN"
    results.append(row)
print(json.dumps(results))
"""


def cases(seed: int) -> List[Tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out: List[Tuple[str, np.ndarray, np.ndarray]] = []
    for n in (1, 2, 5, 17, 1000, 65537):
        y = rng.standard_normal(n).astype(np.float32)
        out.append((f"fp16 noise n={n}", (y * (1 + 1e-3 * rng.standard_normal(n))).astype(np.float16), y))
        out.append((f"unrelated n={n}", rng.standard_normal(n).astype(np.float32), y))
    y = rng.standard_normal(4096).astype(np.float32)
    out.append(("relu-like golden with zeros", np.maximum(y, 0) + 0.01, np.maximum(y, 0)))
    out.append(("offset data", (1000 + y * 1e-2).astype(np.float32), (1000 + y * 1e-2 + 1e-3).astype(np.float32)))
    out.append(("negated", -y, y))
    out.append(("all-zero golden", np.arange(4, dtype=np.float32) + 1, np.zeros(4, np.float32)))
    out.append(("all-zero both", np.zeros(4, np.float32), np.zeros(4, np.float32)))
    out.append(("zero golden element", np.array([1, 2, 5, 4], np.float32), np.array([1, 2, 0, 4], np.float32)))
    out.append(("nan golden element", np.array([1, 2, 3, 4], np.float32), np.array([1, 2, np.nan, 4], np.float32)))
    out.append(("inf in my side", np.array([1, np.inf, 3, 4], np.float32), np.array([1, 2, 3, 4], np.float32)))
    out.append(("scalar", np.array([[3.0]], np.float32), np.array([[2.0]], np.float32)))
    out.append(("constant sides", np.full(64, 2.0, np.float32), np.full(64, 3.0, np.float32)))
    return out


def opdiff_strings(x: np.ndarray, y: np.ndarray) -> Dict[str, str]:
    m = opdiff.metrics(x.astype(np.float32), y.astype(np.float32))
    return {name: format_metric(name, m) for name in opdiff.ALGORITHMS}


def agree(ours: str, theirs: str) -> bool:
    if ours == theirs:
        return True
    if theirs == "1.0" and ours == "1.000000":  # the reference's literal for two all-zero sides
        return True
    try:
        a, b = float(ours), float(theirs)
    except ValueError:
        if ours.startswith("(") and theirs.startswith("("):
            return all(agree(p, q) for p, q in zip(ours.strip("()").replace("),(", ";").split(";"),
                                                         theirs.strip("()").replace("),(", ";").split(";")))
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-4 * max(abs(a), abs(b)) + 1.5e-6  # 6 printed decimals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference-python", required=True, help="python of an environment with mindstudio-probe")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    pairs = cases(args.seed)
    names = list(opdiff.ALGORITHMS)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pairs.npz"
        np.savez(path, **{f"x{i}": x.astype(np.float32) for i, (_, x, _) in enumerate(pairs)},
                 **{f"y{i}": y.astype(np.float32) for i, (_, _, y) in enumerate(pairs)})
        run = subprocess.run([args.reference_python, "-c", REFERENCE_RUNNER, str(path), json.dumps(names)],
                             capture_output=True, text=True)
    if run.returncode != 0:
        print(run.stderr, file=sys.stderr)
        return 1
    reference = json.loads(run.stdout.strip().splitlines()[-1])

    console = Console(width=160)
    table = Table(title="opdiff vs msaccucmp (mindstudio-probe) metric strings; mismatches in red")
    table.add_column("case")
    for name in names:
        table.add_column(name.replace("Error", "Err").replace("Relative", "Rel").replace("Absolute", "Abs"))
    mismatches = 0
    for (label, x, y), theirs in zip(pairs, reference):
        ours = opdiff_strings(x, y)
        cells = []
        for name in names:
            ok = agree(ours[name], theirs[name])
            mismatches += not ok
            cells.append(ours[name] if ok else f"[red]{ours[name]} vs {theirs[name]}[/]")
        table.add_row(label, *cells)
    console.print(table)
    console.print(f"{len(pairs)} cases x {len(names)} metrics, {mismatches} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())

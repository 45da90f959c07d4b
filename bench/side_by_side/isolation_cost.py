"""What `opdiff compare --isolate MODEL` costs per op: the same comparison timed without and with it
(fresh processes, the best of `repeat` runs each), over the NPU ops the isolation CSV isolated.
bench_isolate.py (ONNX models) and bench_isolate_tf.py (TensorFlow graphs) both measure it so."""

from __future__ import annotations

import csv
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List


def best_wall(command: List[str], repeat: int) -> float:
    """The best wall time of `repeat` runs of `command`, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ))
        best = min(best, time.perf_counter() - started)
    return best


def isolated_ops(out: Path) -> int:
    """NPU ops with an isolated output in the newest isolation CSV under `out` (each repeat writes
    one, all of the same comparison)."""
    path = max(out.glob("isolation_*.csv"), key=lambda found: found.stat().st_mtime)
    with open(path, newline="") as handle:
        return len({row["NPUDump"] for row in csv.DictReader(handle) if row["LocalVerdict"] in ("pass", "fail")})


@dataclass(frozen=True)
class IsolationCost:
    without: float  # s, the comparison alone
    with_isolate: float  # s, the same with --isolate
    ops: int  # NPU ops isolated

    @property
    def ms_per_op(self) -> float:
        return (self.with_isolate - self.without) / self.ops * 1000 if self.ops else float("nan")


def isolation_cost(compare: List[str], model: Path, folder: Path, repeat: int) -> IsolationCost:
    """Time `compare` (an `opdiff compare` command without -out) alone and with --isolate `model`."""
    without = best_wall(compare + ["-out", str(folder / "plain")], repeat)
    out = folder / "isolated"
    with_isolate = best_wall(compare + ["-out", str(out), "--isolate", str(model)], repeat)
    return IsolationCost(without, with_isolate, isolated_ops(out))

"""OPDIFF_PHASE_MARKS=1 makes `opdiff compare` write where its time went, for the benchmarks
(python/opdiff/fileio/phase_marks.py); without it nothing of the kind is written."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import List

from opdiff.demo.report import write_case
from opdiff.fileio.phase_marks import MARK_PREFIX, PHASE_MARKS_VARIABLE

PHASES = ["imported", "rule-read", "planned", "first-batch", "rows", "reported"]


def _compare(case: dict, out: Path, marks: bool) -> subprocess.CompletedProcess:
    env = {**os.environ, PHASE_MARKS_VARIABLE: "1"} if marks else {k: v for k, v in os.environ.items() if k != PHASE_MARKS_VARIABLE}
    command = [sys.executable, "-m", "opdiff", "compare", "-m", str(case["npu"]), "-g", str(case["golden"]), "-f", str(case["rule"]),
               "-out", str(out), "--no-progress"]
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False)


def _marks(stderr: str) -> List[List[str]]:
    return [line.split() for line in stderr.splitlines() if line.startswith(MARK_PREFIX)]


def test_a_compare_marks_each_phase_in_order(tmp_path: Path) -> None:
    case = write_case(tmp_path / "case", seed=0, fault="block2/conv1", fault_scale=1.5)
    started = time.time()
    done = _compare(case, tmp_path / "out", marks=True)
    assert done.returncode == 0, done.stderr
    marks = _marks(done.stderr)
    assert [words[1] for words in marks] == PHASES
    times = [float(words[2]) for words in marks]
    assert started <= times[0] and times == sorted(times) and times[-1] <= time.time()
    assert _marks(_compare(case, tmp_path / "quiet", marks=False).stderr) == []

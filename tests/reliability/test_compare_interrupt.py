"""Ctrl-C as a real SIGINT to the CLI mid-run: the run stops soon, exits 130 and keeps only what
docs/cli.md says: one comparison's rows so far in ``result_<time>.incomplete.csv``; with many runs,
the finished runs' CSVs and a summary marked incomplete. Nothing is left half-written.

Each test interrupts once the job has shown it is under way; where the job was quicker than the
interrupt, the work grows and the test runs again, so no outcome depends on the machine's speed."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Tuple

import numpy as np
import pytest

import opdiff
from opdiff.commands.exit_codes import ExitCode
from opdiff.dumps import Tensor
from tests.support.dump_tree import write_dump_tree
from tests.support.many_runs import CLIENT_TIMEOUT, by_run, compared_locally, half_written, summary_of, wait_for_first_csv

TS = 1700000000000000
OPS = (250, 1000, 4000, 16000)  # one comparison's ops, tried in turn until Ctrl-C lands before the end
STEPS = (4, 16, 64)  # many runs: steps of each of two devices, likewise
STOP_SECONDS = 5  # the run must end this soon after Ctrl-C


def _interrupted(command: list, cwd: Path, under_way) -> Tuple[subprocess.Popen, str, str, float]:
    """Start `command`, send SIGINT once `under_way(process)` returns, and wait for the end."""
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    under_way(process)
    process.send_signal(signal.SIGINT)
    interrupted = time.monotonic()
    stdout, stderr = process.communicate(timeout=CLIENT_TIMEOUT)
    return process, stdout, stderr, time.monotonic() - interrupted


def _hard_linked_pair(folder: Path, ops: int) -> Tuple[Path, Path]:
    """Two dump folders of `ops` hard links of one 8 MB dump: seconds of work, no disk to speak of."""
    a, b = folder / "a", folder / "b"
    a.mkdir(parents=True)
    b.mkdir()
    data = np.random.default_rng(0).standard_normal(1 << 22).astype(np.float32)
    template = folder / "template"
    opdiff.write_dump(template, "op", outputs=[Tensor(data, dtype="float16")])
    for i in range(ops):
        for side in (a, b):
            os.link(template, side / f"Op.op{i}.{i}.1.{TS + i}")
    return a, b


def _rows_flushed(out: Path, process: subprocess.Popen) -> None:
    """Until the CSV being written holds rows on disk (its first buffer), or the run ended."""
    deadline = time.monotonic() + CLIENT_TIMEOUT
    while process.poll() is None and not any(path.stat().st_size for path in out.glob("*.partial")):
        assert time.monotonic() < deadline, "no rows were written in time"
        time.sleep(0.01)


def test_ctrl_c_keeps_an_incomplete_report(tmp_path: Path) -> None:
    for ops in OPS:
        a, b = _hard_linked_pair(tmp_path / f"ops{ops}", ops)
        out = tmp_path / f"ops{ops}" / "out"
        process, stdout, stderr, seconds = _interrupted(
            [sys.executable, "-m", "opdiff", "compare", "-m", str(a), "-g", str(b), "-out", str(out), "--threads", "1"],
            tmp_path, lambda process, out=out: _rows_flushed(out, process))
        assert process.returncode in (ExitCode.OK, ExitCode.INTERRUPTED), stderr
        assert not list(out.glob("*.partial")) and "Traceback" not in stderr, stderr
        if list(out.glob("result_*.incomplete.csv")):
            break  # the interrupt landed among the rows (not after the last, while the CSV was named)
    else:
        pytest.fail(f"every comparison finished before Ctrl-C, up to {OPS[-1]} ops")
    assert seconds < STOP_SECONDS, "the run went on after Ctrl-C"
    assert process.returncode == ExitCode.INTERRUPTED, stderr
    assert "interrupted" in stdout and "Traceback" not in stderr
    (kept,) = out.glob("result_*.incomplete.csv")
    text = kept.read_text()
    header, *rows = list(csv.reader(text.splitlines()))
    assert 0 < len(rows) < ops and text.endswith("\n")  # some rows, not all, the last one whole
    assert all(len(row) == len(header) for row in rows)
    assert [path.name for path in out.iterdir()] == [kept.name]  # nothing else: no .partial left


def test_ctrl_c_on_many_runs_keeps_the_finished_runs_and_an_incomplete_summary(tmp_path: Path) -> None:
    for steps in STEPS:
        tree = write_dump_tree(tmp_path / f"steps{steps}", devices=(0, 1), steps=tuple(range(steps)))
        out = tree.root.parent / "out"
        process, stdout, stderr, seconds = _interrupted(
            [sys.executable, "-m", "opdiff", "compare", "-m", tree.root.name, "-g", "golden", "-f", tree.rule.name,
             "-out", str(out)], tree.root.parent, lambda process, out=out: wait_for_first_csv(out, process))
        if len(by_run(out)) < 2 * steps:
            break  # some runs had no CSV yet: the interrupt landed mid-job
    else:
        pytest.fail(f"every job finished before Ctrl-C, up to {STEPS[-1]} steps per device")
    assert seconds < STOP_SECONDS, "the job went on after Ctrl-C"
    assert process.returncode == ExitCode.INTERRUPTED, stderr
    assert "incomplete: interrupted (Ctrl-C)" in stdout and "Traceback" not in stdout + stderr
    local = compared_locally(tree, tree.root.parent / "local")
    written = by_run(out)
    assert written and all(local[label] == data for label, data in written.items())  # each finished run's whole CSV
    summary = summary_of(out)
    assert summary["complete"] is False and summary["end"] == "interrupted"
    assert sorted(summary["missing"]) == sorted(set(local) - set(written))
    assert half_written(out) == []

"""Ctrl-C during a comparison: the run stops soon, keeps an incomplete report, exits 130."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import opdiff
from opdiff.dumps import Tensor

TS = 1700000000000000


def test_ctrl_c_keeps_an_incomplete_report(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    data = np.random.default_rng(0).standard_normal(1 << 22).astype(np.float32)
    template = tmp_path / "template"
    opdiff.write_dump(template, "op", outputs=[Tensor(data, dtype="float16")])
    ops = 2000  # hard links of one 8 MB dump: tens of seconds of work, no disk to speak of
    for i in range(ops):
        for folder in (a, b):
            os.link(template, folder / f"Op.op{i}.{i}.1.{TS + i}")
    out = tmp_path / "out"
    process = subprocess.Popen(
        [sys.executable, "-m", "opdiff", "compare", "-m", str(a), "-g", str(b), "-out", str(out), "--threads", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 60
    while not list(out.glob("*.partial")) and time.monotonic() < deadline:  # wait until rows are being written
        time.sleep(0.05)
    time.sleep(0.3)
    process.send_signal(signal.SIGINT)
    interrupted = time.monotonic()
    stdout, stderr = process.communicate(timeout=60)
    assert time.monotonic() - interrupted < 5, "the run went on after Ctrl-C"
    assert process.returncode == 130, stderr
    assert "interrupted" in stdout
    (kept,) = out.glob("result_*.incomplete.csv")
    rows = kept.read_text().splitlines()
    assert 1 < len(rows) < ops + 1  # the header, some rows, not all of them
    assert not list(out.glob("*.partial"))

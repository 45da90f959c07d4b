"""Run a command and measure it: wall time, exit code, and peak resident memory both of the
largest single process and of the whole process tree (the reference forks worker processes)."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set

_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class RunStats:
    command: Sequence[str]
    exit_code: int
    wall_s: float
    peak_rss_tree: int  # bytes: largest sum of RSS over the process and its descendants, sampled
    # ru_maxrss from wait4; NB Linux starts a forked child's maxrss at its parent's RSS, so this
    # overstates small children of a big parent: prefer peak_rss_tree.
    peak_rss_largest: int
    cpu_s: float  # user + system CPU time of the process and its waited-for descendants
    output: str  # stdout and stderr, merged
    started_at: float = 0.0  # time.time() just before the process was started

    def phases(self) -> Dict[str, float]:
        """Seconds from the start to each phase mark the process wrote (opdiff with
        OPDIFF_PHASE_MARKS=1, python/opdiff/fileio/phase_marks.py), in the order written."""
        marks: Dict[str, float] = {}
        for line in self.output.splitlines():
            words = line.split()
            if len(words) == 3 and words[0] == "opdiff-phase":
                marks[words[1]] = float(words[2]) - self.started_at
        return marks

    @property
    def tail(self) -> str:
        return "\n".join(self.output.splitlines()[-15:])


def _children_map() -> Dict[int, List[int]]:
    children: Dict[int, List[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    return children


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def tree_rss(root: int) -> int:
    """Sum of RSS over `root` and all its descendants now."""
    children = _children_map()
    seen: Set[int] = set()
    stack = [root]
    total = 0
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _rss(pid)
        stack.extend(children.get(pid, ()))
    return total


class _Sampler(threading.Thread):
    def __init__(self, pid: int, interval: float) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval, self.peak = pid, interval, 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, tree_rss(self.pid))
            self.stop.wait(self.interval)


def run_measured(command: Sequence[str], *, env: Optional[Dict[str, str]] = None, cwd: Optional[Path] = None,
                 interval: float = 0.05, timeout: Optional[float] = None) -> RunStats:
    """Run `command` to completion; output goes to a temporary file, not a pipe (no pipe stalls)."""
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"opdiff-bench-{os.getpid()}-{time.monotonic_ns()}.log"
    with open(log, "w+b") as out:
        started_at = time.time()
        start = time.perf_counter()
        process = subprocess.Popen(list(command), stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd)
        sampler = _Sampler(process.pid, interval)
        sampler.start()
        deadline = None if timeout is None else start + timeout
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if deadline is not None and time.perf_counter() > deadline:
                process.kill()
            time.sleep(0.01)
        wall = time.perf_counter() - start
        sampler.stop.set()
        sampler.join()
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    log.unlink()
    cpu = usage.ru_utime + usage.ru_stime
    return RunStats(tuple(command), process.returncode, wall, sampler.peak, usage.ru_maxrss * 1024, cpu, text, started_at)

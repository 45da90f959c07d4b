"""`opdiff compare` on statistics dumps: 100,000 statistics files against as many (NPU vs NPU by op
name), as files per second, beside ``find A B -type f -print0 | xargs -0 cat > /dev/null`` over the
same files with the page cache warm (issue 15's target: within 5x of that cat).

The files are the device's form, written by opdiff.dumps.statistics_writer: one line per input and
output of 16 template tensors (fp16 NC1HWC0 with padding, bf16 FRACTAL_NZ, fp32 ND), each op's
file taking one; from the middle op on, side A's outputs are scaled by 1.6 (so half the rows fail
and the report has something to say).

    python bench/bench_statistics.py [--files 100000] [--runs 3] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Tuple

import numpy as np
from rich.console import Console
from rich.table import Table

from opdiff.dumps import Tensor
from opdiff.dumps.statistics import HEADER
from opdiff.dumps.statistics_writer import statistics_line

TEMPLATES = 16
TIMESTAMP = 1700000000000000


def template_texts(scale: float) -> List[str]:
    """The CSV text of each template op: input and output lines from the writer."""
    rng = np.random.default_rng(0)
    texts = []
    for k in range(TEMPLATES):
        layout, dtype, shape = (("NC1HWC0", "float16", (1, 20, 4, 4)), ("FRACTAL_NZ", "bfloat16", (20, 40)), ("ND", "float32", (64,)))[k % 3]
        x = rng.standard_normal(shape).astype(np.float32) + k * 0.1
        lines = [HEADER, statistics_line("Input", 0, Tensor(x, layout=layout, dtype=dtype)),
                 statistics_line("Output", 0, Tensor(x * np.float32(scale), layout=layout, dtype=dtype))]
        texts.append("\n".join(lines) + "\n")
    return texts


def write_side(folder: Path, files: int, fault_from: int) -> None:
    folder.mkdir(parents=True)
    clean, faulty = template_texts(1.0), template_texts(1.6)
    for i in range(files):
        text = (faulty if i >= fault_from else clean)[i % TEMPLATES]
        (folder / f"Add.layer{i}_add.{i + 1}.1.{TIMESTAMP + i + 1}.csv").write_text(text)


def timed(command: List[str], runs: int) -> Tuple[float, float]:
    """The best wall time of `runs` runs of a shell pipeline or command, and the CPU time (user +
    system, the command's processes together) of that run: on a busy machine the wall time also
    counts the wait for a core, the CPU time does not."""
    best = (float("inf"), float("inf"))
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, (wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=100_000, help="statistics files per side")
    parser.add_argument("--runs", type=int, default=3, help="runs of each command; the best counts")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of opdiff.compare in-process")
    parser.add_argument("--dir", default="/dev/shm" if os.access("/dev/shm", os.W_OK) else None,
                        help="where to build the folders (default /dev/shm: unlinking 200k files on a VM disk can take minutes)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="opdiff-stats-bench-", dir=args.dir) as root:
        a, b, out = Path(root) / "A", Path(root) / "B", Path(root) / "out"
        start = time.perf_counter()
        write_side(a, args.files, args.files // 2)
        write_side(b, args.files, args.files)
        built = time.perf_counter() - start
        total = 2 * args.files
        cat = ["bash", "-c", f"find '{a}' '{b}' -type f -print0 | xargs -0 cat > /dev/null"]
        timed(cat, 1)  # warm the page cache
        cat_s, cat_cpu = timed(cat, args.runs)
        opdiff_cmd = [sys.executable, "-m", "opdiff", "compare", "-m", str(a), "-g", str(b), "-out", str(out), "--no-progress"]
        compare_s, compare_cpu = timed(opdiff_cmd, args.runs)
        rows = [("find | xargs cat (page cache warm)", cat_s, cat_cpu), ("opdiff compare (whole process)", compare_s, compare_cpu)]
        if args.profile:
            import opdiff

            profile = cProfile.Profile()
            profile.runcall(opdiff.compare, a, b, csv=out / "profiled.csv")
    table = Table(title=f"statistics dumps: {args.files:,} files against {args.files:,} ({os.cpu_count()} cores, "
                        f"load {os.getloadavg()[0]:.1f}; folders built in {built:.1f} s)")
    for column in ("command", "wall s", "files/s", "x cat (wall)", "CPU s", "x cat (CPU)"):
        table.add_column(column, justify="left" if column == "command" else "right")
    for label, seconds, cpu in rows:
        table.add_row(label, f"{seconds:.2f}", f"{total / seconds:,.0f}", f"{seconds / cat_s:.1f}", f"{cpu:.2f}", f"{cpu / cat_cpu:.1f}")
    Console().print(table)
    if args.profile:
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(25)
        print("\n".join(line for line in text.getvalue().splitlines() if line.strip()))


if __name__ == "__main__":
    main()

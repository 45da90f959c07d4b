"""Compare over an NPU step folder of many files (issue 8), phase by phase, with a cProfile of the
whole run. The folder is tests.support.many_files: a 2,000-op chain model with golden .npy
partners, older iterations, foreign ops and junk names, 100,000 files in all.

    python bench/bench_many_files.py [--files 100000] [--ops 2000] [--top 25]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests package's helpers, run from anywhere

import opdiff
from opdiff.dumps.discovery import find_leaves, index_folder
from opdiff.match.planning import plan
from tests.support.many_files import write_many_files


def timed(label: str, rows: list, action):
    start, cpu = time.perf_counter(), time.process_time()
    result = action()
    rows.append((label, time.perf_counter() - start, time.process_time() - cpu))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--ops", type=int, default=2_000)
    parser.add_argument("--top", type=int, default=25, help="profile entries to print")
    parser.add_argument("--dir", default="/dev/shm" if os.access("/dev/shm", os.W_OK) else None,
                        help="where to build the folders (default /dev/shm: unlinking 100k files on a VM disk can take minutes)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="opdiff-many-", dir=args.dir) as root:
        phases: list = []
        many = timed("build the folders", phases, lambda: write_many_files(Path(root), total=args.files, ops=args.ops))
        npu_root = many.npu.parents[4]
        timed("find_leaves (walk, pick the step)", phases, lambda: find_leaves(npu_root))
        timed("index_folder (100k names)", phases, lambda: index_folder(many.npu))
        timed("plan (index both sides, match)", phases, lambda: plan(npu_root, many.golden, fusion_rule=many.rule))
        out = Path(root) / "out"
        out.mkdir()
        profile = cProfile.Profile()
        report = timed("opdiff.compare (whole run, profiled)", phases,
                       lambda: profile.runcall(opdiff.compare, npu_root, many.golden, fusion_rule=many.rule, csv=out / "r.csv"))
        timed("opdiff.compare (whole run)", phases,
              lambda: opdiff.compare(npu_root, many.golden, fusion_rule=many.rule, csv=out / "r2.csv"))
    table = Table(title=f"compare over {many.files_in_npu:,} files ({len(report.rows):,} rows, "
                        f"{len(report.compared):,} compared, {len(report.notes):,} notes); load {os.getloadavg()[0]:.1f}")
    for column in ("phase", "wall s", "cpu s"):
        table.add_column(column, justify="left" if column == "phase" else "right")
    for label, wall, cpu in phases:
        table.add_row(label, f"{wall:.2f}", f"{cpu:.2f}")
    Console().print(table)
    for order in ("tottime", "cumulative"):
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats(order).print_stats(args.top)
        print(f"--- cProfile of opdiff.compare by {order} ---")
        print("\n".join(line for line in text.getvalue().splitlines() if line.strip()))


if __name__ == "__main__":
    main()

"""`opdiff compare` on cold files: the data set is dropped from the page cache before every run
(posix_fadvise DONTNEED after fsync, no root needed; mincore then says how much stayed resident),
beside `cat` of the same cold files and the reference tool (msaccucmp):

  (b) 20 ops x 16M elements (half NC1HWC0), as in bench_compare.py
  (g) an LLM-like set of --gb GB (issue: 10; the default is small enough for a quick run)

    python bench/bench_cold.py [--only b,g] [--gb 1] [--repeats 1] [--no-reference] [--workdir /tmp]

Cold `cat`'s throughput is printed too: on a virtual machine the host may still cache the disk, and
that figure shows it. The 10 GB set and the reference's runs take minutes: they stay out of CI.
Each tool runs as a fresh process; with --repeats N the best of N cold runs counts.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests package's helpers, run from anywhere

from rich.console import Console
from rich.table import Table
from side_by_side.bench_data import CASE_B, DataSet, each_data_set, llm_case
from side_by_side.measure import RunStats, run_measured
from side_by_side.page_cache import cat_command, drop_from_cache, files_under, resident_fraction
from side_by_side.reference import DEFAULT_VENV, ReferenceTool, opdiff_compare_command

MIB = 1 << 20
TARGET = 1.3  # opdiff within 1.3x of cold cat (issue 27)
RESIDENT_WARNING = 0.02  # a drop that leaves more than this resident is reported


@dataclass(frozen=True)
class ColdRun:
    tool: str
    stats: RunStats
    resident_before: float  # fraction of the data set's pages cached when the run started


def cold_run(tool: str, command: Sequence[str], data: DataSet, repeats: int, console: Console,
             env: Optional[Dict[str, str]] = None) -> ColdRun:
    """The best of `repeats` runs of `command`, each on a freshly dropped data set."""
    files = files_under([data.my, data.golden])
    best: Optional[ColdRun] = None
    for _ in range(repeats):
        drop_from_cache(files)
        resident = resident_fraction(files)
        colour = "red" if resident > RESIDENT_WARNING else "green"
        stats = run_measured(command, env=env)
        console.print(f"  {tool} {data.name}: {stats.wall_s:.2f} s wall, {stats.cpu_s:.2f} s CPU, exit {stats.exit_code}, "
                      f"resident before [{colour}]{resident:.1%}[/]")
        if stats.exit_code not in (0, 3):
            console.print(f"[red]{tool} failed[/]\n{stats.tail}")
        if best is None or stats.wall_s < best.stats.wall_s:
            best = ColdRun(tool, stats, resident)
    assert best is not None
    return best


def run_case(data: DataSet, tool: Optional[ReferenceTool], out: Path, repeats: int, console: Console) -> List[ColdRun]:
    runs = [cold_run("cat", cat_command([data.my, data.golden]), data, repeats, console),
            cold_run("opdiff", opdiff_compare_command(data.my, data.golden, out / "opdiff", data.rule), data, repeats, console)]
    if tool is not None:
        command = tool.compare_command(data.my, data.golden, out / "reference", data.rule)
        runs.append(cold_run("msaccucmp", command, data, 1, console, env=tool.environment()))
    return runs


def table(cases: List[tuple[DataSet, List[ColdRun]]]) -> Table:
    t = Table(title="opdiff compare on cold files, beside cat and msaccucmp (page cache dropped before each run)")
    for column in ("case", "dump + golden", "tool", "resident before", "wall", "CPU", "throughput", "/ cold cat", "target"):
        t.add_column(column, justify="left" if column in ("case", "tool") else "right")
    for data, runs in cases:
        cat = next(run for run in runs if run.tool == "cat")
        for run in runs:
            ratio = run.stats.wall_s / cat.stats.wall_s
            target = ""
            if run.tool == "opdiff":
                target = f"[{'green' if ratio <= TARGET else 'red'}]<= {TARGET}x[/]"
            t.add_row(data.name, f"{data.total_bytes / MIB:,.0f} MiB", run.tool, f"{run.resident_before:.1%}",
                      f"{run.stats.wall_s:.2f} s", f"{run.stats.cpu_s:.2f} s",
                      f"{data.total_bytes / MIB / run.stats.wall_s:,.0f} MiB/s", f"{ratio:.2f}x", target)
    return t


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="b,g", help="comma-separated cases to run (b, g)")
    parser.add_argument("--gb", type=float, default=1.0, help="total size of the LLM-like set in GB (issue: 10)")
    parser.add_argument("--repeats", type=int, default=1, help="cold runs of opdiff and cat per case (the best counts)")
    parser.add_argument("--no-reference", action="store_true", help="run opdiff and cat only")
    parser.add_argument("--reference-venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--keep", action="store_true", help="keep the generated data")
    args = parser.parse_args()

    console = Console(width=160)
    tool = None if args.no_reference else ReferenceTool.locate(args.reference_venv)
    args.workdir.mkdir(parents=True, exist_ok=True)  # a --workdir that does not exist yet is made
    root = Path(tempfile.mkdtemp(prefix="opdiff-cold-", dir=args.workdir))
    wanted = set(args.only.split(","))
    cases: List[tuple[DataSet, List[ColdRun]]] = []
    try:
        for _, data, folder in each_data_set([CASE_B, llm_case("g", args.gb)], wanted, root, console, keep=args.keep):
            cases.append((data, run_case(data, tool, folder / "out", args.repeats, console)))
        console.print(table(cases))
        console.print("throughput = NPU dump plus golden bytes / wall time; cold cat's throughput is the disk's as this "
                      "machine sees it (a virtual machine's host may cache it). Load average at the end: "
                      + " ".join(f"{v:.1f}" for v in os.getloadavg()))
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

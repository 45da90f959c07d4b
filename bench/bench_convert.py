"""Throughput and peak memory of `opdiff convert` on a directory of fp16 NC1HWC0 dumps.

Writes ~1 GB of dumps (made by opdiff's own writer) to a temporary folder under /tmp, then times
`opdiff convert` in a child process, twice: the stored arrays to .npy (no -f) and the logical
NCHW arrays (-f NCHW, channel padding removed). A plain sequential read of the same files gives
the page-cache speed to compare with. Peak RSS is the child's maximum resident set. Everything
is deleted afterwards.

    python bench/bench_convert.py [--gigabytes 1.0] [--threads 0]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Tuple

import numpy as np

import opdiff
from opdiff.dumps import Tensor

# One tensor per file: N=8, C=60 (stored as C1=4 x C0=16), H=128, W=256, fp16: 33.5 MB stored.
LOGICAL_SHAPE = (8, 60, 128, 256)


def make_dumps(folder: Path, gigabytes: float) -> Tuple[int, int]:
    """Write dumps until `gigabytes` of stored tensor data exist; returns (files, bytes)."""
    rng = np.random.default_rng(0)
    logical = rng.normal(size=LOGICAL_SHAPE).astype(np.float16)
    files, total = 0, 0
    while total < gigabytes * 1e9:
        path = opdiff.write_dump(folder / f"Conv2D.conv{files}.{files}.1.{1700000000000000 + files}", f"conv{files}",
                                 outputs=[Tensor(logical, layout="NC1HWC0")])
        total += path.stat().st_size
        files += 1
    return files, total


def page_cache_read(folder: Path) -> float:
    """Seconds to read every file once in 8 MiB blocks (the files were just written: cached)."""
    start = time.perf_counter()
    for path in folder.iterdir():
        with open(path, "rb", buffering=0) as handle:
            while handle.read(8 << 20):
                pass
    return time.perf_counter() - start


def page_cache_copy(folder: Path, target: Path) -> float:
    """Seconds to copy every file (read + write the same bytes: the bound for a converter)."""
    target.mkdir()
    start = time.perf_counter()
    for path in folder.iterdir():
        shutil.copyfile(path, target / path.name)
    seconds = time.perf_counter() - start
    shutil.rmtree(target)
    return seconds


def timed_convert(arguments: List[str]) -> Tuple[float, float]:
    """(seconds, peak RSS in MB) of one `opdiff convert` child process."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "opdiff", "convert", *arguments], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"opdiff convert {' '.join(arguments)} failed")
    return seconds, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gigabytes", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=0, help="convert -j (default: every core)")
    parser.add_argument("--generate-into", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.generate_into:
        files, total = make_dumps(args.generate_into, args.gigabytes)
        print(files, total)
        return 0
    from rich.console import Console
    from rich.table import Table

    console = Console()
    root = Path(tempfile.mkdtemp(prefix="opdiff-bench-", dir="/tmp"))
    try:
        dumps = root / "dumps"
        dumps.mkdir()
        # Generated in a child: a forked child's peak RSS counts the parent's pages until exec,
        # so the timing parent must stay small.
        generated = subprocess.run([sys.executable, __file__, "--gigabytes", str(args.gigabytes), "--generate-into", str(dumps)],
                                   capture_output=True, text=True, check=True)
        files, total = map(int, generated.stdout.split())
        gb = total / 1e9
        table = Table(title=f"opdiff convert: {files} fp16 NC1HWC0 dumps, {gb:.2f} GB, {os.cpu_count()} CPUs, -j {args.threads or 'all'}")
        for column in ("run", "seconds", "GB/s", "peak RSS (MB)"):
            table.add_column(column, justify="left" if column == "run" else "right")
        read_seconds = page_cache_read(dumps)
        table.add_row("sequential read of the files (page cache)", f"{read_seconds:.2f}", f"{gb / read_seconds:.2f}", "-")
        copy_seconds = page_cache_copy(dumps, root / "copy")
        table.add_row("copy of the files (read + write, page cache)", f"{copy_seconds:.2f}", f"{gb / copy_seconds:.2f}", "-")
        runs = (
            ("convert -> .npy (stored arrays)", args.threads, []),
            ("convert -f NCHW -> .npy (logical, padding removed)", args.threads, ["-f", "NCHW"]),
            ("convert -f NCHW, 8 threads (memory bound check)", 8, ["-f", "NCHW"]),
        )
        for label, threads, extra in runs:
            out = root / "out"
            seconds, rss = timed_convert(["-d", str(dumps), "-out", str(out), "-j", str(threads), *extra])
            written = sum(p.stat().st_size for p in out.iterdir()) / 1e9
            table.add_row(f"{label}; wrote {written:.2f} GB", f"{seconds:.2f}", f"{gb / seconds:.2f}", f"{rss:.0f}")
            shutil.rmtree(out)
        console.print(table)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

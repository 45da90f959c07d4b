"""Indexing speed: 100,000 NPU dump files and 100,000 golden .npy files (empty files; indexing
reads names only). Prints a table.

    python bench/bench_discovery.py [--files 100000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from opdiff.dumps.discovery import index_folder


def make_folder(folder: Path, count: int, golden: bool) -> None:
    folder.mkdir(parents=True)
    for i in range(count):
        name = f"layer{i // 7}_op{i}.0.{1700000000000000 + i}.npy" if golden else f"Conv2D.layer{i // 7}_op{i}.{i}.1.{1700000000000000 + i}"
        (folder / name).touch()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=100_000)
    args = parser.parse_args()
    table = Table(title=f"opdiff discovery: indexing {args.files:,} file names")
    for column in ("folder", "files", "indexed ops", "seconds", "files/s"):
        table.add_column(column, justify="right")
    with tempfile.TemporaryDirectory() as root:
        for golden in (False, True):
            folder = Path(root) / ("golden" if golden else "npu")
            make_folder(folder, args.files, golden)
            start = time.perf_counter()
            index = index_folder(folder)
            seconds = time.perf_counter() - start
            table.add_row(folder.name, f"{index.count:,}", f"{len(index.files):,}", f"{seconds:.2f}", f"{index.count / seconds:,.0f}")
    Console().print(table)


if __name__ == "__main__":
    main()

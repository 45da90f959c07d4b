"""Reading tfdbg dump roots: time and peak memory against `cat` of the same files.

Writes a v1 root (an initialiser run and two training runs of one tensor file per op) and a v2
root (two executions of a traced function, their FULL_TENSOR traces in one TFRecord stream), each
of about --gigabytes of tensor data (made by opdiff's own tfdbg writer, under /tmp), then, in a
child process for each root, reads it as ``-g ROOT`` does: the root indexed, then every tensor of
every run decoded to its array (v2: each record's CRC checked). ``cat`` of the same files, warm,
is the yardstick; peak RSS is the child's. ``--export`` also times writing the .npy golden files
of the last step (what a comparison caches). Everything is deleted afterwards.

    python bench/bench_tfdbg.py [--gigabytes 1.0] [--tensor-mb 8] [--export]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np

from opdiff.dumps.tfdbg.crc32c import IMPLEMENTATION
from opdiff.dumps.tfdbg.writer import file_bytes, write_v1_run, write_v2_root

TARGET_RSS_MB = 256


def step_tensors(gigabytes: float, tensor_mb: float, seed: int) -> List[Dict[Tuple[str, int], np.ndarray]]:
    """Two steps of tensors, `gigabytes` in all, named as a training graph's ops."""
    rng = np.random.default_rng(seed)
    elements = int(tensor_mb * 1e6 / 4)
    base = rng.standard_normal(elements).astype(np.float32)
    count = max(1, int(gigabytes * 1e3 / tensor_mb / 2))
    names = [f"block{i // 4}/{'conv' if i % 2 == 0 else 'gradients/conv_grad'}/op{i}" for i in range(count)]
    return [{(name, 0): base + k for name in names} for k in range(2)]


def write_roots(folder: Path, gigabytes: float, tensor_mb: float) -> Tuple[Path, Path]:
    v1, v2 = folder / "v1", folder / "v2"
    write_v1_run(v1, 0, {("init", 0): np.zeros(1, np.float32)}, ["init"])
    for number, tensors in enumerate(step_tensors(gigabytes, tensor_mb, 0)):
        write_v1_run(v1, number + 1, tensors, ["train"])
    write_v2_root(v2, step_tensors(gigabytes, tensor_mb, 1))
    return v1, v2


def _files(root: Path) -> List[str]:
    return sorted(os.path.join(folder, name) for folder, _, names in os.walk(root) for name in names)


def time_cat(root: Path) -> float:
    files = _files(root)
    subprocess.run(["cat", *files], stdout=subprocess.DEVNULL, check=True)  # warm the page cache
    start = time.perf_counter()
    subprocess.run(["cat", *files], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def read_everything(root: Path) -> None:
    """The child's work: index the root, decode every tensor (touching its values); prints the
    seconds and the peak RSS in MB."""
    from opdiff.dumps.tfdbg.roots import read_tensor, read_tfdbg_root

    start = time.perf_counter()
    total = 0.0
    for run in read_tfdbg_root(root).runs:
        for ref in run.tensors:
            total += float(read_tensor(ref).reshape(-1)[-1])
    seconds = time.perf_counter() - start
    print(f"{seconds} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024} {total}")


def export_last_step(root: Path, out: Path) -> None:
    from opdiff.dumps.tfdbg.export import export_run
    from opdiff.dumps.tfdbg.roots import read_tfdbg_root

    start = time.perf_counter()
    export_run(read_tfdbg_root(root).step(None), out)
    print(f"{time.perf_counter() - start} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024} 0")


def in_child(mode: str, root: Path, out: Path) -> Tuple[float, float]:
    # through /bin/sh, so the child's peak RSS is its own (tests/support/own_peak.py says why)
    done = subprocess.run(["/bin/sh", "-c", '"$@"; exit $?', "sh", sys.executable, __file__, f"--{mode}", str(root), str(out)],
                          capture_output=True, text=True, check=True)
    seconds, rss, _ = done.stdout.split()
    return float(seconds), float(rss)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gigabytes", type=float, default=1.0, help="tensor data per root (default 1.0)")
    parser.add_argument("--tensor-mb", type=float, default=8.0, help="size of each tensor (default 8 MB)")
    parser.add_argument("--export", action="store_true", help="also time exporting the last step to .npy files")
    parser.add_argument("--read", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--write", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.read:
        read_everything(args.read[0])
        return 0
    if args.write:
        export_last_step(*args.write)
        return 0
    folder = Path(tempfile.mkdtemp(prefix="opdiff-bench-tfdbg-"))
    try:
        v1, v2 = write_roots(folder, args.gigabytes, args.tensor_mb)
        print(f"CRC-32C: {IMPLEMENTATION}; peak RSS target {TARGET_RSS_MB} MB, time target 2x cat")
        print(f"{'root':<6}{'MB':>8}{'cat s':>8}{'read s':>8}{'x cat':>7}{'peak MB':>9}" + (f"{'export s':>10}{'peak MB':>9}" if args.export else ""))
        for root in (v1, v2):
            cat = time_cat(root)
            seconds, rss = in_child("read", root, folder / "unused")
            line = f"{root.name:<6}{file_bytes(root) / 1e6:>8.0f}{cat:>8.2f}{seconds:>8.2f}{seconds / cat:>7.2f}{rss:>9.0f}"
            if args.export:
                export_seconds, export_rss = in_child("write", root, folder / f"npy_{root.name}")
                line += f"{export_seconds:>10.2f}{export_rss:>9.0f}"
            print(line)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

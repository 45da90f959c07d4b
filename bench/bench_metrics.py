"""Throughput of opdiff.metrics per dtype pair, size, thread count and SIMD path, beside numpy.

Prints GB/s of input (bytes of both tensors per second), best of several runs, data in memory:

    python bench/bench_metrics.py                # everything (a few minutes)
    python bench/bench_metrics.py --quick        # 1M and 16M fp16 vs fp32 only

"numpy float64" is a straightforward numpy implementation of the same metrics (convert both sides to
float64, one vectorised expression per metric), which is what a Python tool does at best.
"""

from __future__ import annotations

import argparse
import time
from typing import Callable, Dict, List, Tuple

import ml_dtypes
import numpy as np
from rich.console import Console
from rich.table import Table

import opdiff
from opdiff.numerics.core_adapter import compute_metrics

PAIRS: Dict[str, Tuple[np.dtype, np.dtype]] = {
    "fp16 vs fp32": (np.dtype(np.float16), np.dtype(np.float32)),
    "fp16 vs fp16": (np.dtype(np.float16), np.dtype(np.float16)),
    "bf16 vs fp32": (np.dtype(ml_dtypes.bfloat16), np.dtype(np.float32)),
    "fp32 vs fp32": (np.dtype(np.float32), np.dtype(np.float32)),
    "int8 vs fp32": (np.dtype(np.int8), np.dtype(np.float32)),
}


def make_pair(name: str, n: int) -> Tuple[np.ndarray, np.ndarray]:
    x_dtype, y_dtype = PAIRS[name]
    rng = np.random.default_rng(0)
    golden = rng.standard_normal(n, dtype=np.float32)
    if x_dtype == np.int8:
        golden = np.clip(golden * 30, -127, 127)
    noisy = golden * (1 + rng.standard_normal(n, dtype=np.float32) * np.float32(1e-3))
    return noisy.astype(x_dtype), golden.astype(y_dtype)


def numpy_metrics(x: np.ndarray, y: np.ndarray) -> None:
    """The same metrics as a numpy float64 program would compute them (KL included)."""
    x = x.astype(np.float64)
    y = y.astype(np.float64)
    d = x - y
    ad = np.abs(d)
    np.dot(x, y) / (np.linalg.norm(x) * np.linalg.norm(y))
    ad.max()
    rel = np.where(np.abs(y) > 2.0**-52, ad / np.abs(y), 0)
    rel.sum(), rel.max(), rel.mean(), ad.mean(), np.sqrt(np.mean(d * d))
    np.sqrt(np.dot(d, d) / np.dot(y, y))
    x.mean(), x.std(), y.mean(), y.std()
    p = np.maximum((x - x.min()) / (x.max() - x.min()), 1.19e-7)
    q = np.maximum((y - y.min()) / (y.max() - y.min()), 1.19e-7)
    p /= p.sum()
    q /= q.sum()
    np.sum(p * np.log(p / q))


def best_seconds(fn: Callable[[], object], budget: float = 1.5, max_runs: int = 20) -> float:
    fn()  # warm up (page faults, caches)
    best, spent, runs = float("inf"), 0.0, 0
    while runs < max_runs and (runs < 3 or spent < budget):
        start = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        best, spent, runs = min(best, elapsed), spent + elapsed, runs + 1
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fp16 vs fp32 only")
    parser.add_argument("--no-numpy", action="store_true", help="skip the numpy baseline")
    args = parser.parse_args()

    console = Console()
    info = opdiff.simd_info()
    console.print(f"opdiff {opdiff.__version__}: SIMD paths {', '.join(info['supported'])}; CPU {', '.join(info['cpu_features'])}")
    pairs: List[str] = ["fp16 vs fp32"] if args.quick else list(PAIRS)
    sizes = [1 << 20, 16 << 20]
    table = Table(title="opdiff.metrics throughput, GB/s of input (both tensors), best of several runs")
    for column in ("pair", "elements", "threads", "path", "all but KL", "all with KL", "numpy float64"):
        table.add_column(column, justify="right" if column not in ("pair", "path") else "left")
    for pair in pairs:
        for n in sizes:
            x, y = make_pair(pair, n)
            nbytes = x.nbytes + y.nbytes
            numpy_rate = "-"
            if not args.no_numpy and n == sizes[0]:
                numpy_rate = f"{nbytes / best_seconds(lambda: numpy_metrics(x, y), 1.0, 3) / 1e9:.3f}"
            for threads in (1, 2):
                for path in info["supported"]:
                    no_kl = best_seconds(
                        lambda: compute_metrics(x, y, algorithms=[0, 1, 2, 3, 5, 6, 7, 8, 9], threads=threads, simd=path)
                    )
                    with_kl = best_seconds(lambda: compute_metrics(x, y, threads=threads, simd=path))
                    table.add_row(
                        pair,
                        f"{n >> 20}M",
                        str(threads),
                        path,
                        f"{nbytes / no_kl / 1e9:.2f}",
                        f"{nbytes / with_kl / 1e9:.2f}",
                        numpy_rate if (threads, path) == (1, info["supported"][0]) else "",
                    )
            table.add_section()
    console.print(table)


if __name__ == "__main__":
    main()

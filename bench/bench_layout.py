"""Decode throughput of stored layouts: GB/s of stored input turned into logical-order elements.

Writes one fp16 dump per case with opdiff's writer (16M logical elements by default) under /tmp,
then times, in this process, (1) `read_into` of the logical array (the to_numpy/convert path; GB/s
of stored fp16 decoded) and (2) `tensor_metrics` against an fp32 logical golden on one thread (the
compare path, kernels and KL included; GB/s of both inputs). The plain ND case gives the
no-gather figure. Times are CPU seconds (best of `--repeats`), so that a machine shared with
other jobs still gives comparable figures; the load average is printed with them.

    python bench/bench_layout.py [--elements 16777216] [--repeats 5] [--cases nc1hwc0_big,...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np
from rich.console import Console
from rich.table import Table

import opdiff
from opdiff.dumps import Tensor, tensor_metrics


@dataclass(frozen=True)
class Case:
    name: str
    layout: str
    shape: Callable[[int], Sequence[int]]  # logical shape for a number of elements
    target: Optional[str] = None           # logical format read (None: the default)


def _square(n: int) -> int:
    return 1 << (int(np.log2(n)) // 2)


CASES: Dict[str, Case] = {case.name: case for case in [
    Case("nd", "ND", lambda n: (n // 256, 256)),
    # bench_compare (b): one C1 block, H*W = 1M: a 64K chunk lies inside one channel.
    Case("nc1hwc0_big", "NC1HWC0", lambda n: (1, 16, _square(n // 16), n // 16 // _square(n // 16))),
    # bench_convert: C = 60 (padding in the last C1 block), H*W = 32K.
    Case("nc1hwc0_convert", "NC1HWC0", lambda n: (n // (60 * 128 * 256) or 1, 60, 128, 256)),
    Case("nc1hwc0_small", "NC1HWC0", lambda n: (n // (256 * 7 * 7), 256, 7, 7)),
    Case("nc1hwc0_nhwc", "NC1HWC0", lambda n: (n // (64 * 64 * 64), 64, 64, 64), "NHWC"),
    Case("fractal_nz", "FRACTAL_NZ", lambda n: (n // (1000 * 1000) or 1, 1000, 1000)),
    Case("fractal_z", "FRACTAL_Z", lambda n: (n // (250 * 9), 250, 3, 3)),
    Case("nhwc_nchw", "NHWC", lambda n: (n // (64 * 64 * 64), 64, 64, 64), "NCHW"),
]}


def best(seconds: Callable[[], float], repeats: int) -> float:
    return min(seconds() for _ in range(repeats))


def timed(action: Callable[[], object]) -> float:
    start = time.process_time()
    action()
    return time.process_time() - start


CHUNK = 1 << 16  # the metric engine's chunk


def read_chunks(view, siblings: int) -> None:
    """Every 64K chunk of `view` in logical order, `siblings` chunks one plane apart per call (the
    order an engine using ElementSource::run_siblings would read them in)."""
    plane, total = view.sibling_stride, int(np.prod(view.shape))
    group = plane * siblings
    for base in range(0, total, group):
        n = min(siblings, (total - base) // plane)
        for start in range(base, base + plane, CHUNK):
            view.read_siblings(start, plane, n, min(CHUNK, base + plane - start))


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=1 << 24)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args(argv)
    console = Console()
    table = Table(title=f"layout decode, fp16, ~{args.elements / 2**20:.0f}M elements, best of {args.repeats}")
    table.caption = f"load average {os.getloadavg()[0]:.1f}; CPU time"
    for column in ("case", "logical shape", "path", "stored MB", "read_into GB/s", "metrics 1 thread GB/s",
                   "64K chunks GB/s: one by one / sibling groups"):
        table.add_column(column, justify="left" if column in ("case", "logical shape") else "right")
    folder = Path(tempfile.mkdtemp(prefix="opdiff-bench-layout-"))
    try:
        rng = np.random.default_rng(0)
        for name in args.cases.split(","):
            case = CASES[name]
            shape = tuple(case.shape(args.elements))
            golden32 = rng.standard_normal(shape).astype(np.float32)
            dump = opdiff.write_dump(folder / f"{name}.dump", name,
                                     outputs=[Tensor(golden32.astype(np.float16), layout=case.layout)])
            tensor = opdiff.read_dump(dump).outputs[0]
            view = tensor.view(case.target)
            logical = golden32 if case.target in (None, "NCHW") or (case.layout == "NHWC" and case.target == "NCHW") else \
                np.ascontiguousarray(np.moveaxis(golden32, 1, -1))
            gold = opdiff.write_dump(folder / f"{name}.golden", name, outputs=[Tensor(logical, layout=case.target or "ND")]) \
                if case.target else opdiff.write_dump(folder / f"{name}.golden", name, outputs=[Tensor(golden32)])
            golden_view = opdiff.read_dump(gold).outputs[0].view()
            out = np.empty(int(np.prod(view.shape)) * 2, np.uint8)
            stored = tensor.size
            read = best(lambda: timed(lambda: view.read_into(out)), args.repeats)
            check = out.view(np.float16).reshape(view.shape)
            assert np.array_equal(check.astype(np.float32), logical.astype(np.float16).astype(np.float32)), name
            compare = best(lambda: timed(lambda: tensor_metrics(view, golden_view, threads=1)), args.repeats)
            tile = getattr(view, "tile_axis", None)
            path = "-" if view.identity or tile is None else "tiles" if tile >= 0 else "rows"
            both = stored + logical.nbytes
            chunks = "-"
            if getattr(view, "sibling_stride", 0) and view.sibling_stride % CHUNK == 0:
                single = best(lambda: timed(lambda: read_chunks(view, 1)), args.repeats)
                grouped = best(lambda: timed(lambda: read_chunks(view, view.sibling_count)), args.repeats)
                chunks = f"{stored / single / 1e9:.2f} / {stored / grouped / 1e9:.2f}"
            table.add_row(name, str(tuple(view.shape)), path, f"{stored / 1e6:.1f}", f"{stored / read / 1e9:.2f}",
                          f"{both / compare / 1e9:.2f}", chunks)
            dump.unlink()
            gold.unlink()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    console.print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

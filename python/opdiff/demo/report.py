"""Runs the demo network twice, writes both runs as .npy files, compares them op by op with the
native core and prints the result."""

from __future__ import annotations

import io
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import numpy as np
from rich.console import Console
from rich.table import Table

import opdiff
from opdiff.demo.network import build_network, run_network, with_fault

COSINE_THRESHOLD = 0.99
MAX_RELATIVE_THRESHOLD = 0.1


@dataclass(frozen=True)
class OpResult:
    index: int
    op: str
    metrics: opdiff.Metrics

    @property
    def fails(self) -> bool:
        return not (self.metrics.cosine_similarity >= COSINE_THRESHOLD)


def save_npy(path: Path, array: np.ndarray) -> None:
    """Write through a temporary name, so a file is whole or absent."""
    partial = path.with_name(path.name + ".partial")
    # np.save on a real file reports a short write as "N requested and M written"; through a
    # buffer a full disk is the plain OSError (ENOSPC) the caller reports. Demo arrays are small.
    buffer = io.BytesIO()
    np.save(buffer, array)
    try:
        with open(partial, "wb") as handle:
            handle.write(buffer.getbuffer())
    except BaseException:
        partial.unlink(missing_ok=True)  # a full disk leaves no half file behind
        raise
    os.replace(partial, path)


def write_runs(folder: Path, seed: int, fault: str, fault_scale: float) -> List[str]:
    """Golden (fp32) and device (fp16, faulty op) outputs as {op}.0.{timestamp}.npy files."""
    ops = build_network(seed)
    if fault not in {op.name for op in ops}:
        raise ValueError(f"no op named {fault!r} in the demo network")
    image = np.random.default_rng(seed + 1).standard_normal((1, 3, 32, 32)).astype(np.float32)
    golden = run_network(ops, image)
    device = run_network(with_fault(ops, fault, fault_scale), image, np.float16)
    stamp = int(time.time() * 1e6)
    for side, outputs in (("golden", golden), ("device", device)):
        (folder / side).mkdir(parents=True, exist_ok=True)
        for name, array in outputs.items():
            save_npy(folder / side / f"{name.replace('/', '_')}.0.{stamp}.npy", array)
    return list(golden)


def compare(folder: Path, names: List[str]) -> List[OpResult]:
    results = []
    for index, name in enumerate(names):
        file_name = name.replace("/", "_")
        my = np.load(next((folder / "device").glob(f"{file_name}.0.*.npy")))
        golden = np.load(next((folder / "golden").glob(f"{file_name}.0.*.npy")))
        results.append(OpResult(index, name, opdiff.metrics(my, golden)))
    return results


def first_failure(results: List[OpResult]) -> Optional[OpResult]:
    return next((r for r in results if r.fails), None)


def print_report(console: Console, folder: Path, results: List[OpResult]) -> None:
    table = Table(title="opdiff demo: fp16 device (my) vs fp32 golden, per op in execution order")
    for column in ("Index", "Op", "Cosine", "MaxAbsErr", "MaxRelErr", "RMSE", "SQNR dB"):
        table.add_column(column, justify="left" if column == "Op" else "right", no_wrap=True)
    culprit = first_failure(results)
    for r in results:
        m = r.metrics
        style = "bold red" if r is culprit else ("red" if r.fails else "")
        table.add_row(
            str(r.index),
            r.op,
            f"{m.cosine_similarity:.6f}",
            f"{m.max_absolute_error:.6f}",
            f"{m.max_relative_error:.6f}",
            f"{m.root_mean_square_error:.6f}",
            f"{m.sqnr_db:.1f}",
            style=style,
        )
    console.print(table)
    console.print(f"data in [bold]{folder}[/] (device/ and golden/ .npy files)")
    failing = sum(r.fails for r in results)
    console.print(f"{len(results)} tensors compared, {failing} below cosine {COSINE_THRESHOLD}")
    if culprit is None:
        console.print("[green]every tensor meets the accuracy threshold[/]")
    else:
        console.print(
            f"[bold red]first divergence:[/] op [bold]{culprit.op}[/] (index {culprit.index}): cosine "
            f"{culprit.metrics.cosine_similarity:.6f}, worst element at flat index "
            f"{culprit.metrics.max_absolute_error_index}"
        )


def run_demo(folder: Path, seed: int, fault: str, fault_scale: float) -> int:
    console = Console()
    try:
        names = write_runs(folder, seed, fault, fault_scale)
    except ValueError as error:
        console.print(f"[red]error:[/] {error}")
        return 2
    except OSError as error:
        console.print(f"[red]error:[/] cannot write the demo data to {folder}: {error.strerror or error}")
        return 2
    print_report(console, folder, compare(folder, names))
    return 0

"""Benchmark: `opdiff graph` on a 50,000-op .om built with the project's writer (target: under 2 s).

    python bench/bench_graph.py [--ops 50000] [--repeat 5]

Each op carries what a real ATC build records per op: original names (one in four fused from 2-4
framework ops), an output desc with origin name/index/format/shape, and a dozen unrelated attributes.
The compressed variant encodes attribute names and string values like an offline ATC build.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests package's helpers, run from anywhere

from opdiff.graph import read_graph
from opdiff.graph.model_def_builder import model_def, op_def, output_desc
from opdiff.graph.om.writer import MODEL_DEF, MODEL_INOUT_INFO, TASK_INFO, WEIGHTS_DATA, write_om
from opdiff.graph.proto import ge_ir_pb2 as ge
from tests.support.attr_compressor import compress

TARGET_SECONDS = 2.0


def build_model(ops: int) -> ge.ModelDef:
    """A chain of `ops` ops fed by one Data op; every fourth op fused from several framework ops."""
    defs: List[ge.OpDef] = [op_def("input", "Data", output_descs=[output_desc("input", 0, origin_format="NCHW", origin_shape=[1, 3, 224, 224])])]
    for k in range(1, ops):
        names = [f"layer{k}/conv", f"layer{k}/bn", f"layer{k}/relu"][: 1 + (k % 3)] if k % 4 == 0 else [f"layer{k}/op"]
        op = op_def(
            f"op_{k}", ("Conv2D", "Relu", "Add", "TransData")[k % 4], id_=k, inputs=[f"{defs[-1].name}:0", f"{defs[-1].name}:-1"],
            original_names=names,
            output_descs=[output_desc(names[-1], 0, origin_format="NCHW", origin_shape=[1, 64, 56, 56])],
            extra_attrs=[(f"_unrelated_{j}", f"value{j % 5}") for j in range(12)],
        )
        op.attr["_input_name_key"].list.s.append(b"x")
        defs.append(op)
    defs.append(op_def("output", "NetOutput", id_=ops, inputs=[f"{defs[-1].name}:0"], original_names=[]))
    return model_def("bench_model", [("bench_graph", defs)])


def write_variant(folder: Path, ops: int, compressed: bool) -> Path:
    model = build_model(ops)
    if compressed:
        compress(model)
    payload = model.SerializeToString()
    parts = [(MODEL_INOUT_INFO, bytes(64)), (MODEL_DEF, payload), (WEIGHTS_DATA, bytes(4096)), (TASK_INFO, bytes(1024))]
    return write_om(folder / f"bench_{'compressed' if compressed else 'plain'}.om", [parts])


@dataclass(frozen=True)
class Timing:
    """Best and median wall time of the runs, and the CPU time (user + sys) of the best run."""

    best: float
    median: float
    cpu: float

    def __str__(self) -> str:
        return f"{self.best:.2f} s (median {self.median:.2f}, cpu {self.cpu:.2f})"


def timed(action: Callable[[], object], repeat: int) -> Timing:
    """Times `action`; the best run is the figure least disturbed by other work on a shared machine."""
    runs = []
    for _ in range(repeat):
        before = _cpu_seconds()
        start = time.perf_counter()
        action()
        runs.append((time.perf_counter() - start, _cpu_seconds() - before))
    best = min(runs)
    return Timing(best[0], statistics.median(wall for wall, _ in runs), best[1])


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def cli(path: Path, *extra: str) -> None:
    subprocess.run([sys.executable, "-m", "opdiff", "graph", str(path), *extra], check=True, stdout=subprocess.DEVNULL)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    console = Console(width=170)  # the table stays readable when the output is piped to a file
    table = Table(title=f"opdiff graph on a {args.ops:,}-op .om: best of {args.repeat} (target < {TARGET_SECONDS:g} s)")
    for column in ("model", "file size", "read_graph (in process)", "opdiff graph (whole process)", "opdiff graph --json", "load", "verdict"):
        table.add_column(column, justify="right")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for compressed in (False, True):
            path = write_variant(folder, args.ops, compressed)
            fm = read_graph(path)
            assert len(fm.ops) == args.ops + 1, len(fm.ops)
            in_process = timed(lambda: read_graph(path), args.repeat)
            whole = timed(lambda: cli(path), args.repeat)
            with_json = timed(lambda: cli(path, "--json", str(folder / "out.json")), args.repeat)
            verdict = "[green]ok[/]" if whole.best < TARGET_SECONDS else "[red]too slow[/]"
            table.add_row(
                "compressed attrs" if compressed else "plain attrs", f"{path.stat().st_size / 2**20:.1f} MiB",
                str(in_process), str(whole), str(with_json), f"{os.getloadavg()[0]:.1f}", verdict,
            )
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    table.caption = (f"{os.cpu_count()} CPUs, load average {load} (1, 5, 15 min) at the end, 'load' = 1-min average after each "
                     "row; cpu = user + sys seconds of the best run")
    console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())

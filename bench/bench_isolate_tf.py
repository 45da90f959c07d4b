"""Benchmark: what `opdiff compare --isolate MODEL.pb` costs per op isolated, on TensorFlow.

    TF_PYTHON=$(python tools/tf_env.py) && "$TF_PYTHON" bench/bench_isolate_tf.py [--chain 400,2000] [--repeat 2]

Per length: a frozen graph of that many elementwise ops (Mul and Add by a constant vector, Tanh,
Relu, in turn) on a [1, 64] tensor; its golden run with `opdiff dump-tf`; a device-style run (each
node's own TensorFlow tensors stored in fp16, one NPU op per node, an atc JSON fusion rule); then the
wall time of `opdiff compare` as a whole process, without and with `--isolate` (best of `--repeat`),
and (with - without) / ops isolated. Needs the tf extra (`pip install "opdiff[tf]"`).
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np
from rich.console import Console
from rich.table import Table
from side_by_side.isolation_cost import isolation_cost

import opdiff
from opdiff.graph.json_export import write_atc_json
from opdiff.graph.rule_builder import RuleOp, RuleOutput, fusion_rule
from opdiff.producers.tf.support import require_tensorflow

WIDTH = 64
DEVICE_TIMESTAMP = 1_700_000_000_000_000


def chain_graph(length: int) -> Any:
    """`length` elementwise ops named op0, op1, ... after the Placeholder x [1, WIDTH]."""
    tf = require_tensorflow()
    graph = tf.Graph()
    with graph.as_default():
        current = tf.compat.v1.placeholder(tf.float32, [1, WIDTH], name="x")
        for k in range(length):
            name = f"op{k}"
            kind = k % 4
            if kind == 0:
                current = tf.multiply(current, tf.constant(np.full((1, WIDTH), 1.0 + k / 10000, np.float32)), name=name)
            elif kind == 1:
                current = tf.add(current, tf.constant(np.full((1, WIDTH), 0.01, np.float32)), name=name)
            else:
                current = tf.tanh(current, name=name) if kind == 2 else tf.nn.relu(current, name=name)
    return graph


def write_case(length: int, folder: Path) -> None:
    """net.pb, x.npy, the device run (device/, rule.json) and dump-tf's golden run (golden/) in `folder`."""
    tf = require_tensorflow()
    graph = chain_graph(length)
    (folder / "net.pb").write_bytes(graph.as_graph_def().SerializeToString())
    x = np.linspace(-1, 1, WIDTH, dtype=np.float32).reshape(1, WIDTH)
    np.save(folder / "x.npy", x)
    names = ["x"] + [f"op{k}" for k in range(length)]
    with tf.compat.v1.Session(graph=graph) as session:
        values: Dict[str, np.ndarray] = dict(zip(names, session.run([f"{n}:0" for n in names], {"x:0": x})))
    (folder / "device").mkdir()
    ops = [RuleOp("x", "Data", 0, [], ["x"], [RuleOutput("x", 0, [1, WIDTH])])]
    for k, (previous, name) in enumerate(itertools.pairwise(names), 1):
        ops.append(RuleOp(name, "Elementwise", k, [f"{previous}:0"], [name], [RuleOutput(name, 0, [1, WIDTH])]))
        opdiff.write_dump(folder / "device" / f"Elementwise.{name}.{k}.0.{DEVICE_TIMESTAMP + k}", name,
                          inputs=[values[previous].astype(np.float16)], outputs=[values[name].astype(np.float16)])
    write_atc_json(fusion_rule(ops), folder / "rule.json")
    subprocess.run([sys.executable, "-m", "opdiff", "dump-tf", str(folder / "net.pb"), "--input", f"x={folder / 'x.npy'}",
                    "-o", str(folder / "golden")], check=True, stdout=subprocess.DEVNULL)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chain", default="400,2000", help="comma-separated chain lengths")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each compare; the best counts")
    parser.add_argument("--keep", type=Path, help="keep the runs in this folder")
    args = parser.parse_args(argv)
    table = Table(title=f"opdiff compare --isolate MODEL.pb: cost per op isolated ({os.cpu_count()} cores)")
    for column in ("graph", "compare s", "with --isolate s", "ms / op"):
        table.add_column(column, justify="left" if column == "graph" else "right")
    with tempfile.TemporaryDirectory(prefix="opdiff-bench-isolate-tf-") as scratch:
        for length in [int(n) for n in args.chain.split(",") if n]:
            folder = (args.keep or Path(scratch)) / f"chain_{length}"
            folder.mkdir(parents=True)
            write_case(length, folder)
            base = [sys.executable, "-m", "opdiff", "compare", "-m", str(folder / "device"), "-g", str(folder / "golden" / "golden"),
                    "-f", str(folder / "rule.json")]
            cost = isolation_cost(base, folder / "golden" / "model.pb", folder, args.repeat)
            table.add_row(f"chain of {length}", f"{cost.without:.2f}", f"{cost.with_isolate:.2f}", f"{cost.ms_per_op:.1f}")
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

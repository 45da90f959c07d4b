"""Benchmark: what `opdiff compare --isolate` costs per op isolated.

    python bench/bench_isolate.py [--models squeezenet,resnet50] [--chain 2000] [--repeat 1] [--keep DIR]

Per model (the light networks of the onnx package with seeded weights, and a generated chain of
`--chain` elementwise ops on a [1, 256] tensor): a golden run and an fp16 fusion-on device run with
`opdiff dump-onnx`'s pipeline, then the wall time of `opdiff compare` as a whole process, without
and with `--isolate` (best of `--repeat`), and (with - without) / ops isolated. Target: at most 20
ms per op on 2 cores. Needs the onnx extra (`pip install "opdiff[onnx]"`).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import List, Optional, Tuple

import numpy as np
from rich.console import Console
from rich.table import Table
from side_by_side.isolation_cost import isolation_cost

from opdiff.producers import DumpOptions, DumpResult, Precision, dump_onnx
from opdiff.producers.model_inputs import input_specs, random_inputs
from opdiff.producers.onnx.light_models import light_model_names, load_light_model
from opdiff.producers.onnx.random_weights import randomize_weights
from opdiff.producers.onnx.support import OnnxModel

TARGET_MS = 20.0


def chain_model(length: int, width: int = 256, seed: int = 0) -> OnnxModel:
    """`length` elementwise ops (Mul and Add by a weight vector, Tanh, Relu, in turn) on [1, width]."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    nodes, weights = [], []
    current = "x"
    for k in range(length):
        kind = ("Mul", "Add", "Tanh", "Relu")[k % 4]
        out = f"t{k}"
        if kind in ("Mul", "Add"):
            values = (1.0 + 0.05 * rng.standard_normal(width)) if kind == "Mul" else 0.05 * rng.standard_normal(width)
            weights.append(numpy_helper.from_array(values.astype(np.float32).reshape(1, width), f"w{k}"))
            nodes.append(helper.make_node(kind, [current, f"w{k}"], [out], name=f"op{k}"))
        else:
            nodes.append(helper.make_node(kind, [current], [out], name=f"op{k}"))
        current = out
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, width])],
                              [helper.make_tensor_value_info(current, TensorProto.FLOAT, [1, width])], weights)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def dump_pair(model: OnnxModel, folder: Path, name: str) -> Tuple[DumpResult, DumpResult]:
    feeds = random_inputs(input_specs(model), seed=0)
    golden = dump_onnx(model, folder / "golden", feeds, name=name)
    device = dump_onnx(model, folder / "fp16", feeds, DumpOptions(fusion=True, precision=Precision.FP16), name=name)
    return golden, device


def measure(name: str, golden: DumpResult, device: DumpResult, folder: Path, repeat: int) -> Tuple[str, int, float, float, int, float]:
    base = [sys.executable, "-m", "opdiff", "compare", "-m", str(device.tensor_folder), "-g", str(golden.tensor_folder),
            "-f", str(device.fusion_rule)]
    cost = isolation_cost(base, golden.model_path, folder, repeat)
    return name, device.ops, cost.without, cost.with_isolate, cost.ops, cost.ms_per_op


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="", help="comma-separated light models (default: all of the wheel's)")
    parser.add_argument("--chain", type=int, default=2000, help="ops of the generated chain (0: none)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each compare; the best counts")
    parser.add_argument("--keep", type=Path, help="keep the dumps in this folder")
    args = parser.parse_args(argv)
    names = [m for m in args.models.split(",") if m] or light_model_names()
    table = Table(title=f"opdiff compare --isolate: cost per op isolated (target <= {TARGET_MS:g} ms, {os.cpu_count()} cores)")
    for column in ("model", "device ops", "compare s", "with --isolate s", "ops isolated", "ms / op"):
        table.add_column(column, justify="left" if column == "model" else "right")
    with tempfile.TemporaryDirectory(prefix="opdiff-bench-isolate-") as scratch:
        root = args.keep or Path(scratch)
        cases = [(name, lambda name=name: randomize_weights(load_light_model(name), seed=0).model) for name in names]
        if args.chain:
            cases.append((f"chain of {args.chain}", lambda: chain_model(args.chain)))
        for name, build in cases:
            folder = root / name.replace(" ", "_")
            golden, device = dump_pair(build(), folder, name.replace(" ", "_"))
            row = measure(name, golden, device, folder, args.repeat)
            table.add_row(row[0], str(row[1]), f"{row[2]:.2f}", f"{row[3]:.2f}", str(row[4]), f"{row[5]:.1f}")
            Console().print(f"{name}: {row[5]:.1f} ms / op", highlight=False)
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

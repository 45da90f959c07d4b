"""Benchmark: `opdiff dump-onnx` on every light network of the onnx package, with seeded weights.

    python bench/bench_onnx_models.py [--models resnet50,squeezenet] [--seed 0] [--keep DIR]

Per model: seconds of the golden run (no optimisation, fp32, .npy per op output), the fusion-on run
(ONNX Runtime's extended optimisations, Ascend dump files + fusion rule), the fp16 run and the
fp16 fusion-on run; the share of the fused graphs' tensors mapped to golden tensors; and, as a
sanity check of the numbers, the worst cosine similarity of an fp16 fused-graph output against its
golden tensor. Needs the onnx extra (`pip install "opdiff[onnx]"`).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import numpy as np
from rich.console import Console
from rich.table import Table

import opdiff
from opdiff.dumps.discovery import escape_op_name, index_folder
from opdiff.producers import DumpOptions, DumpResult, Precision, dump_onnx
from opdiff.producers.light_models import light_model_names, load_light_model
from opdiff.producers.model_inputs import input_specs, random_inputs
from opdiff.producers.random_weights import randomize_weights


@dataclass
class ModelFigures:
    name: str
    nodes: int
    golden_files: int
    golden_s: float
    fusion_s: float
    fp16_s: float
    fp16_fusion_s: float
    fused_nodes: int
    multi_to_one: int
    fusion_mapped: float
    fp16_fusion_mapped: float
    max_abs_golden: float
    worst_fp16_cosine: float


def timed(call):
    started = time.perf_counter()
    result = call()
    return result, time.perf_counter() - started


def worst_cosine(golden: DumpResult, device: DumpResult) -> float:
    """The lowest cosine similarity of a float device output against its golden tensor."""
    gold = index_folder(golden.tensor_folder)
    fusion_map = opdiff.read_graph(device.fusion_rule)
    by_key = {escape_op_name(op.name): op for op in fusion_map.ops}
    index = index_folder(device.tensor_folder)
    worst = 1.0
    for key in index.files:
        dump = opdiff.read_dump(index.newest(key).path)
        for k, tensor in enumerate(dump.outputs):
            desc = by_key[key].output_descs[k]
            found = gold.newest(f"{escape_op_name(desc.origin_name)}.{desc.origin_output_index}") if desc.origin_name else None
            if found is None or tensor.dtype not in ("float16", "float32") or int(np.prod(tensor.original_shape or (1,))) < 2:
                continue
            cosine = opdiff.metrics(tensor.to_numpy(), np.load(found.path)).cosine_similarity
            worst = cosine if np.isnan(cosine) else min(worst, cosine)  # NaN (an overflow) is the worst
            if np.isnan(worst):
                return worst
    return worst


def bench_model(name: str, seed: int, folder: Path) -> ModelFigures:
    model = randomize_weights(load_light_model(name), seed).model
    feeds = random_inputs(input_specs(model), seed)
    golden, golden_s = timed(lambda: dump_onnx(model, folder / "golden", feeds, name=name))
    fused, fusion_s = timed(lambda: dump_onnx(model, folder / "fusion", feeds, DumpOptions(fusion=True), name=name))
    _, fp16_s = timed(lambda: dump_onnx(model, folder / "fp16", feeds, DumpOptions(precision=Precision.FP16), name=name))
    half, fp16_fusion_s = timed(lambda: dump_onnx(model, folder / "fp16_fusion", feeds, DumpOptions(fusion=True, precision=Precision.FP16), name=name))
    fusion_map = opdiff.read_graph(fused.fusion_rule)
    max_abs = max(float(np.abs(np.load(p)).max()) for p in golden.tensor_folder.glob("*.npy") if np.load(p).dtype.kind == "f" and np.load(p).size)
    return ModelFigures(
        name, len(model.graph.node), golden.files, golden_s, fusion_s, fp16_s, fp16_fusion_s, fused.ops,
        sum(1 for g in fusion_map.groups if g.relation.value == "MultiToOne"),
        fused.mapped_share or 0.0, half.mapped_share or 0.0, max_abs, worst_cosine(golden, half),
    )


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="", help="comma-separated light model names (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", metavar="DIR", help="write the runs here instead of a temporary folder")
    args = parser.parse_args(argv)
    names = [n for n in args.models.split(",") if n] or light_model_names()
    console = Console(width=max(Console().width, 200))  # the table is wide; keep it readable when piped
    rows: List[ModelFigures] = []
    with tempfile.TemporaryDirectory(prefix="bench-onnx-models-") as scratch:
        base = Path(args.keep) if args.keep else Path(scratch)
        for name in names:
            with console.status(f"{name} ..."):
                rows.append(bench_model(name, args.seed, base / name))
    table = Table(title=f"dump-onnx on the onnx package's light models (seeded weights {args.seed}; load average {os.getloadavg()[0]:.1f}; seconds per whole run)")
    for column in ("model", "nodes", "golden files", "golden s", "fusion-on s", "fp16 s", "fp16+fusion s", "fused-graph nodes",
                   "MultiToOne", "mapped (fusion)", "mapped (fp16+fusion)", "max |golden|", "worst fp16 cosine"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for r in rows:
        table.add_row(r.name, str(r.nodes), str(r.golden_files), f"{r.golden_s:.2f}", f"{r.fusion_s:.2f}", f"{r.fp16_s:.2f}",
                      f"{r.fp16_fusion_s:.2f}", str(r.fused_nodes), str(r.multi_to_one), f"{r.fusion_mapped:.1%}",
                      f"{r.fp16_fusion_mapped:.1%}", f"{r.max_abs_golden:.3g}", f"{r.worst_fp16_cosine:.6f}")
    console.print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

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
from opdiff.advisor.tensor_advisor import advise
from opdiff.producers import DumpOptions, DumpResult, OutputKind, Precision, dump_onnx
from opdiff.producers.model_inputs import input_specs, random_inputs
from opdiff.producers.onnx.light_models import light_model_names, load_light_model
from opdiff.producers.onnx.random_weights import randomize_weights


@dataclass
class ComparisonFigures:
    """One opdiff compare of two runs: how much matched, the worst cosine, the advisor's verdict."""

    seconds: float
    outputs: int
    compared_share: float
    worst_cosine: float
    failing: int
    verdict: str


@dataclass
class ModelFigures:
    name: str
    nodes: int
    golden_files: int
    golden_s: float
    fusion_s: float
    fp16_fusion_s: float
    fused_nodes: int
    multi_to_one: int
    fusion_mapped: float
    max_abs_golden: float
    fp16_vs_golden: ComparisonFigures
    fusion_on_vs_off: ComparisonFigures


def timed(call):
    started = time.perf_counter()
    result = call()
    return result, time.perf_counter() - started


def compare_runs(my: DumpResult, golden: DumpResult, close_rule: Optional[Path] = None) -> ComparisonFigures:
    """opdiff compare of `my` (a device run) against `golden` (golden .npy, or a fusion-off device run)."""
    report, seconds = timed(lambda: opdiff.compare(my.tensor_folder, golden.tensor_folder, fusion_rule=my.fusion_rule,
                                                   close_fusion_rule=close_rule))
    outputs = [row for row in report.rows if ":output:" in row.tensor_index]
    compared = [row for row in outputs if row.compared]
    cosines = [row.metrics.cosine_similarity for row in compared if row.metrics.count > 1]
    findings = advise(report, opdiff.read_graph(my.fusion_rule))
    # The advisor's headline: its first finding, or "all pass" when only the verdict is left.
    headline = "all pass" if len(findings) == 1 and report.first_failure() is None else findings[0].kind.value
    return ComparisonFigures(seconds, len(outputs), len(compared) / max(1, len(outputs)),
                             min(cosines, default=float("nan")), len(report.failing()), headline)


def bench_model(name: str, seed: int, folder: Path) -> ModelFigures:
    model = randomize_weights(load_light_model(name), seed).model
    feeds = random_inputs(input_specs(model), seed)
    golden, golden_s = timed(lambda: dump_onnx(model, folder / "golden", feeds, name=name))
    fused, fusion_s = timed(lambda: dump_onnx(model, folder / "fusion", feeds, DumpOptions(fusion=True), name=name))
    unfused = dump_onnx(model, folder / "no_fusion", feeds, DumpOptions(kind=OutputKind.DEVICE), name=name)
    half, fp16_fusion_s = timed(lambda: dump_onnx(model, folder / "fp16_fusion", feeds,
                                                  DumpOptions(fusion=True, precision=Precision.FP16), name=name))
    fusion_map = opdiff.read_graph(fused.fusion_rule)
    max_abs = max(float(np.abs(np.load(p)).max()) for p in golden.tensor_folder.glob("*.npy") if np.load(p).dtype.kind == "f" and np.load(p).size)
    return ModelFigures(
        name, len(model.graph.node), golden.files, golden_s, fusion_s, fp16_fusion_s, fused.ops,
        sum(1 for g in fusion_map.groups if g.relation.value == "MultiToOne"), fused.mapped_share or 0.0, max_abs,
        compare_runs(half, golden), compare_runs(fused, unfused, unfused.fusion_rule),
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
    table = Table(title=f"dump-onnx on the onnx package's light models (seeded weights {args.seed}; "
                        f"load average {os.getloadavg()[0]:.1f}; seconds per whole run)")
    for column in ("model", "nodes", "golden s", "fusion-on s", "fp16+fusion s", "fused nodes", "MultiToOne",
                   "mapped", "max |golden|", "fp16 vs golden: s", "outputs matched", "worst cosine", "failing",
                   "advisor", "on vs off: s", "outputs matched", "worst cosine"):
        table.add_column(column, justify="left" if column in ("model", "advisor") else "right")
    for r in rows:
        a, b = r.fp16_vs_golden, r.fusion_on_vs_off
        table.add_row(r.name, str(r.nodes), f"{r.golden_s:.2f}", f"{r.fusion_s:.2f}", f"{r.fp16_fusion_s:.2f}", str(r.fused_nodes),
                      str(r.multi_to_one), f"{r.fusion_mapped:.1%}", f"{r.max_abs_golden:.3g}", f"{a.seconds:.2f}",
                      f"{a.compared_share:.0%}/{a.outputs}", f"{a.worst_cosine:.6f}", str(a.failing), a.verdict,
                      f"{b.seconds:.2f}", f"{b.compared_share:.0%}/{b.outputs}", f"{b.worst_cosine:.6f}")
    console.print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark: the quantized scenario on unfaulted QDQ runs: how much is compared, and how close.

    python bench/bench_qdq_agreement.py [--models torch_style,squeezenet] [--batches 4] [--markdown FILE]

Per model (the PyTorch-named torch_style model and every light model of the onnx wheel, seeded
weights): a float golden run, a QDQ int8 copy (ONNX Runtime static quantization, min/max
calibration on `--batches` seeded random batches) run as the device side, and `opdiff compare`
through the rule dump-onnx writes. Figures: the share of the float ops' tensors compared (outputs
and activation inputs of every op that is not a QuantizeLinear/DequantizeLinear; weights have
no golden), and over those compared tensors the CosineSimilarity and the norm ratio ||x|| / ||y||
(my / golden), min / median / max: the data for int8 verdict thresholds.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests package's helpers, run from anywhere

import opdiff
from opdiff.producers import DumpOptions, OutputKind, dump_onnx
from opdiff.producers.model_inputs import input_specs, random_inputs
from opdiff.producers.onnx.light_models import light_model_names, load_light_model
from opdiff.producers.onnx.random_weights import randomize_weights
from opdiff.producers.qdq.model import quantize_qdq
from tests.support.qdq_coverage import Agreement, agreement, float_op_coverage
from tests.support.torch_style_model import torch_style_model

TORCH_STYLE = "torch_style"


@dataclass
class QdqFigures:
    model: str
    float_tensors: int
    compared: int
    quant_skipped: int
    figures: Agreement
    seconds: float


def float_model(name: str) -> object:
    return torch_style_model(blocks=4) if name == TORCH_STYLE else randomize_weights(load_light_model(name), seed=0).model


def bench_model(name: str, batches: int, folder: Path) -> QdqFigures:
    from opdiff.graph import quant_filter

    started = time.perf_counter()
    model = float_model(name)
    specs = input_specs(model)
    feeds = random_inputs(specs, seed=0)
    golden = dump_onnx(model, folder / "golden", feeds, name=name)
    qdq = quantize_qdq(model, [random_inputs(specs, 1000 + k) for k in range(batches)])
    device = dump_onnx(qdq, folder / "qdq", feeds, DumpOptions(kind=OutputKind.DEVICE), name=name, reference=model)
    rule = opdiff.read_graph(device.fusion_rule)
    report = opdiff.compare(device.tensor_folder, golden.tensor_folder, fusion_rule=rule)
    coverage = float_op_coverage(rule, report.rows)
    return QdqFigures(name, len(coverage.tensors), len(coverage.compared), len(quant_filter(rule).skipped_ops),
                      agreement(report.rows, coverage.tensors), time.perf_counter() - started)


def markdown(rows: List[QdqFigures], batches: int) -> str:
    lines = [f"QDQ int8 (ONNX Runtime static quantization, min/max on {batches} seeded batches) vs float golden; "
             "per compared float-op tensor:", "",
             "| model | float-op tensors | compared | quant-filter skips | cosine min / median / max | norm ratio min / median / max | s |",
             "| --- | --: | --: | --: | --- | --- | --: |"]
    for r in rows:
        c, n = r.figures.cosine, r.figures.norm_ratio
        lines.append(f"| {r.model} | {r.float_tensors} | {r.compared / r.float_tensors:.1%} | {r.quant_skipped} | "
                     f"{c.minimum:.4f} / {c.median:.5f} / {c.maximum:.5f} | {n.minimum:.4f} / {n.median:.4f} / {n.maximum:.4f} | {r.seconds:.1f} |")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="", help=f"comma-separated (default: {TORCH_STYLE} and every light model)")
    parser.add_argument("--batches", type=int, default=4, help="calibration batches (default 4)")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    names = [m for m in args.models.split(",") if m] or [TORCH_STYLE] + light_model_names()
    console = Console()
    rows: List[QdqFigures] = []
    for name in names:
        with tempfile.TemporaryDirectory(prefix="opdiff-qdq-") as folder:
            rows.append(bench_model(name, args.batches, Path(folder)))
        console.print(f"{name}: {rows[-1].seconds:.1f} s", highlight=False)
    table = Table(title=f"QDQ int8 vs float golden ({args.batches} calibration batches): compared float-op tensors")
    for column in ("model", "float-op tensors", "compared", "quant-filter skips", "cosine min", "median", "max", "norm ratio min", "median", "max"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for r in rows:
        c, n = r.figures.cosine, r.figures.norm_ratio
        table.add_row(r.model, str(r.float_tensors), f"{r.compared / r.float_tensors:.1%}", str(r.quant_skipped),
                      f"{c.minimum:.4f}", f"{c.median:.5f}", f"{c.maximum:.5f}", f"{n.minimum:.4f}", f"{n.median:.4f}", f"{n.maximum:.4f}")
    console.print(table)
    if args.markdown:
        args.markdown.write_text(markdown(rows, args.batches) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The default verdict on real ONNX runs: how close clean fp16 (fusion on) and int8 QDQ runs of the
onnx wheel's light models come to their precision rows' limits, and whether a known fault fails.

    python bench/bench_verdict.py                     # every light model
    python bench/bench_verdict.py squeezenet resnet50 # some of them
    python bench/bench_verdict.py --qdq 8             # also the int8 QDQ run (calibrated on 8 batches)

Random weights and inputs, seed 0 (`opdiff dump-onnx --randomize-weights 0 --random-inputs 0`).
The fault run scales a quarter of the weight channels of the model's middle Conv by 1.5. Needs
`pip install "opdiff[onnx]"`. Prints one table; the margins are limit / worst value.
"""

from __future__ import annotations

import argparse
import math
import tempfile
from pathlib import Path
from typing import List, Optional

from rich.console import Console
from rich.table import Table

import opdiff
from opdiff.producers import DumpOptions, OutputKind, Precision, dump_onnx
from opdiff.producers.model_inputs import input_specs, random_inputs
from opdiff.producers.onnx.fault_injection import scale_weights
from opdiff.producers.onnx.light_models import light_model_names, load_light_model
from opdiff.producers.onnx.random_weights import randomize_weights
from opdiff.producers.qdq.model import quantize_qdq
from opdiff.results.tensor_report import Report


def _row(table: Table, model: str, run: str, report: Report) -> None:
    verdict = report.verdict()
    compared = report.compared
    rows = verdict.rows_in_use(compared)
    limit = rows[0] if rows else None
    cosines = [r.metrics.cosine_similarity for r in compared if r.metrics and math.isfinite(r.metrics.cosine_similarity)]
    norms = [r.metrics.norm_ratio_error for r in compared if r.metrics and math.isfinite(r.metrics.norm_ratio_error)]
    worst_cos, worst_norm = min(cosines, default=math.nan), max(norms, default=math.nan)
    first = report.first_failure()
    cos_margin = (1 - limit.cosine) / max(1 - worst_cos, 1e-300) if limit else math.nan
    norm_margin = limit.norm_ratio / max(worst_norm, 1e-300) if limit else math.nan
    table.add_row(model, run, limit.name if limit else "-", str(len(compared)), str(len(report.failing())),
                  f"{worst_cos:.7f}", f"{cos_margin:.3g}x", f"{worst_norm:.3g}", f"{norm_margin:.3g}x",
                  first.tensor_index if first else "-")


def _middle_conv(model: object) -> Optional[str]:
    convs: List[str] = [node.name for node in model.graph.node if node.op_type == "Conv"]  # type: ignore[attr-defined]
    return convs[len(convs) // 2] if convs else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", help="light model names (default: all)")
    parser.add_argument("--qdq", type=int, default=0, metavar="N", help="also run int8 QDQ, calibrated on N batches")
    args = parser.parse_args()
    table = Table(title="default verdict on ONNX runs (seed 0)", title_justify="left")
    for column in ("model", "run", "precision row", "compared", "fail", "worst cosine", "cos margin",
                   "worst NormRatioError", "norm margin", "first failing tensor"):
        table.add_column(column, justify="left" if column in ("model", "run", "precision row", "first failing tensor") else "right")
    for name in args.models or light_model_names():
        model = randomize_weights(load_light_model(name), seed=0).model
        feeds = random_inputs(input_specs(model), seed=0)
        root = Path(tempfile.mkdtemp(prefix=f"verdict-{name}-"))
        dump_onnx(model, root / "golden", feeds)
        golden = root / "golden" / "golden"

        def compare(run: str) -> Report:
            return opdiff.compare(root / run / "dump", golden, fusion_rule=root / run / "fusion_rule.json")

        dump_onnx(model, root / "fp16", feeds, DumpOptions(fusion=True, precision=Precision.FP16))
        _row(table, name, "fp16, fusion on", compare("fp16"))
        conv = _middle_conv(model)
        if conv is not None:
            faulty = scale_weights(model, conv, 1.5)
            dump_onnx(faulty, root / "fault", feeds, DumpOptions(fusion=True, precision=Precision.FP16), reference=model)
            _row(table, name, f"fp16, {conv} x1.5", compare("fault"))
        if args.qdq:
            qdq = quantize_qdq(model, [random_inputs(input_specs(model), seed) for seed in range(args.qdq)])
            dump_onnx(qdq, root / "qdq", feeds, DumpOptions(kind=OutputKind.DEVICE), reference=model)
            _row(table, name, f"int8 QDQ ({args.qdq} batches)", compare("qdq"))
    Console().print(table)


if __name__ == "__main__":
    main()

"""Benchmark: what `opdiff precision` costs on the light networks of the onnx package.

    python bench/bench_precision.py [--models squeezenet,resnet50] [--qdq 2] [--fail-under CosineSimilarity=0.99999]

Per model (seeded weights, seeded inputs), in a child process of its own (its peak RSS is its own):
one search (fp16 by default, int8 with --qdq) and one dump-onnx run of the same precision, each
child reporting its seconds and peak RSS. Prints the evaluations made, the seconds, the share of
them spent outside the evaluations (ranking, setup) and outside every model run (the evaluations,
the float32 run and the ranking's runs: what the search's own machinery costs), the ops kept, the
candidates, and the peak RSS of the search against the dump-onnx run's. The bound bisect must keep, 2·k·log2(n) + k evaluations
(plus the empty and the full set), is checked per row. Targets: time outside evaluations <= 10%,
peak RSS <= 2x one dump-onnx run. Needs the onnx extra (`pip install "opdiff[onnx]"`).
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

from rich.console import Console
from rich.table import Table


def _load(name: str):  # type: ignore[no-untyped-def]
    from opdiff.producers.model_inputs import input_specs, random_inputs
    from opdiff.producers.onnx.light_models import load_light_model
    from opdiff.producers.onnx.random_weights import randomize_weights

    model = randomize_weights(load_light_model(name), 0).model
    return model, random_inputs(input_specs(model), 0)


def _child_search(name: str, qdq: Optional[int], fail_under: List[str]) -> Dict[str, object]:
    from opdiff.precision.evaluate import Mode
    from opdiff.precision.run import PrecisionOptions, find_what_to_keep
    from opdiff.precision.target import Target

    model, feeds = _load(name)
    mode = Mode.INT8 if qdq else Mode.FP16
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        finding = find_what_to_keep(model, feeds, Target.parse(fail_under, "int8" if qdq else "float16"), Path(folder),
                                    PrecisionOptions(mode=mode, calibration_batches=qdq or 2))
    seconds = time.perf_counter() - started
    return {"evaluations": len(finding.steps.order), "seconds": seconds, "evaluation_seconds": finding.evaluation_seconds,
            "reference_seconds": finding.reference_seconds,
            "kept": len(finding.result.kept), "candidates": finding.result.candidates, "outcome": finding.result.outcome.value,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _child_dump(name: str, qdq: Optional[int]) -> Dict[str, object]:
    from opdiff.producers import DumpOptions, OutputKind, Precision, dump_onnx

    model, feeds = _load(name)
    reference = None
    if qdq:
        from opdiff.producers.model_inputs import input_specs, random_inputs
        from opdiff.producers.qdq.model import quantize_qdq

        specs = input_specs(model)
        model, reference = quantize_qdq(model, [random_inputs(specs, 1000 + k) for k in range(qdq)]), model
    options = DumpOptions(kind=OutputKind.DEVICE) if qdq else DumpOptions(precision=Precision.FP16)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        dump_onnx(model, folder, feeds, options, name=name, reference=reference)
    return {"seconds": time.perf_counter() - started, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _in_child(kind: str, name: str, args: argparse.Namespace) -> Dict[str, object]:
    argv = [sys.executable, __file__, "--child", kind, "--models", name] + (["--qdq", str(args.qdq)] if args.qdq else [])
    argv += [f"--fail-under={text}" for text in args.fail_under]
    # through a forked shell: a child started by vfork+exec would inherit this process's peak RSS
    done = subprocess.run(["/bin/sh", "-c", '"$@"; exit $?', "sh", *argv], capture_output=True, text=True, check=True)
    result: Dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _row(table: Table, name: str, search: Dict[str, object], dump: Dict[str, object]) -> None:
    evaluations, kept, n = int(str(search["evaluations"])), int(str(search["kept"])), int(str(search["candidates"]))
    seconds, inside = float(str(search["seconds"])), float(str(search["evaluation_seconds"]))
    runs = inside + float(str(search["reference_seconds"]))  # every model run: the evaluations, the float32 and ranking runs
    bound = max(2 * kept * math.log2(max(n, 2)) + kept, 1)  # nothing needed: the one evaluation of the empty set
    ratio = float(str(search["peak_mb"])) / float(str(dump["peak_mb"]))
    table.add_row(name, str(search["outcome"]), f"{evaluations} (<= {bound:.0f})", f"{seconds:.1f}", f"{1 - inside / seconds:.0%}",
                  f"{1 - runs / seconds:.0%}",
                  f"{kept} / {n}", f"{float(str(search['peak_mb'])):.0f}", f"{float(str(dump['peak_mb'])):.0f} ({ratio:.2f}x)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="", help="light models, comma-separated (default: all)")
    parser.add_argument("--qdq", type=int, default=0, help="search the int8 copy calibrated on N batches (default: fp16)")
    parser.add_argument("--fail-under", action="append", default=[], metavar="METRIC=VALUE", help="the target (default: the verdict)")
    parser.add_argument("--child", choices=("search", "dump"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run = _child_search(args.models, args.qdq or None, args.fail_under) if args.child == "search" else _child_dump(args.models, args.qdq or None)
        print(json.dumps(run))
        return 0
    from opdiff.producers.onnx.light_models import light_model_names

    names = [n for n in args.models.split(",") if n] or light_model_names()
    table = Table(title=f"opdiff precision ({'int8, --qdq ' + str(args.qdq) if args.qdq else 'fp16'}; target: "
                  f"{', '.join(args.fail_under) or 'the default verdict'})")
    for column in ("model", "outcome", "evaluations", "seconds", "outside evaluations", "outside model runs", "kept / candidates", "peak MB",
                   "one dump-onnx run, MB"):
        table.add_column(column)
    for name in names:
        _row(table, name, _in_child("search", name, args), _in_child("dump", name, args))
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: `dump-onnx` on the full matrix, and three fp16 converters on the fp16 half of it.

    python bench/bench_onnx_ir_matrix.py [--envs newest,oldest] [--models squeezenet,resnet50] [--markdown FILE]

Matrix: every light model of the onnx wheel (seeded weights) x both IR forms (IR 3 with
initializers also graph inputs; the current IR) x fusion off/on x fp32/fp16 x the newest and the
oldest onnx + onnxruntime that pyproject admits (each a venv from tools/onnx_env.py, with
onnxconverter-common 1.16 installed beside). Each run is a device run (Ascend dump files and
fusion rule) compared with `opdiff compare` against the golden run of the same model and form.

fp16 converters, each on the graph that ran (the optimised one for fusion on):
  opdiff     producers/onnx/fp16_model.py, as `dump-onnx --dtype fp16` runs it
  ort        onnxruntime.transformers.float16.convert_float_to_float16(keep_io_types=True)
  occ        onnxconverter_common.float16.convert_float_to_float16(keep_io_types=True)

A run is correct when it runs, every dumped output maps to its golden tensor and is compared, the
worst output cosine is above 0.999 (fp16; 0.99999 fp32), and (fp16) at least 90% of the compared
float outputs are fp16. The table gives, per cell: `ok` or what failed, compared share, worst
cosine, fp16 share. Seconds are whole runs on 2 shared cores.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests package's helpers (the workers too), run from anywhere
CONVERTERS = ("opdiff", "ort", "occ")
FP16_SHARE_FLOOR = 0.9


@dataclass
class Case:
    """One cell of the matrix."""

    env: str
    onnx: str
    onnxruntime: str
    model: str
    form: str
    fusion: bool
    precision: str
    converter: str  # "" for fp32
    correct: bool = False
    failure: str = ""
    compared_share: float = 0.0
    worst_cosine: float = float("nan")
    fp16_share: float = float("nan")
    seconds: float = 0.0


# ---------------------------------------------------------------- worker: runs inside one environment


def _converter(name: str) -> Callable[[object], object]:
    if name == "ort":
        from onnxruntime.transformers.float16 import convert_float_to_float16 as ort_convert

        return lambda model: ort_convert(model, keep_io_types=True)
    if name == "occ":
        from onnxconverter_common.float16 import convert_float_to_float16 as occ_convert

        return lambda model: occ_convert(model, keep_io_types=True)
    raise ValueError(name)


def _device_run(model: object, folder: Path, feeds: Dict, fusion: bool, precision: str, converter: str) -> object:
    from opdiff.producers import DumpOptions, OutputKind, Precision, dump_onnx
    from opdiff.producers.onnx.model_prep import prepare_model
    from opdiff.producers.onnx.runner import Optimization, optimize_model

    if precision == "fp32" or converter == "opdiff":
        options = DumpOptions(fusion=fusion, precision=Precision(precision), kind=OutputKind.DEVICE)
        return dump_onnx(model, folder, feeds, options, name="m")
    graph = prepare_model(model).model
    if fusion:
        graph = prepare_model(optimize_model(graph, Optimization.EXTENDED)).model
    return dump_onnx(_converter(converter)(graph), folder, feeds, DumpOptions(kind=OutputKind.DEVICE), name="m", reference=model)


def _judge(case: Case, device: object, golden_folder: Path) -> None:
    import opdiff

    report = opdiff.compare(device.tensor_folder, golden_folder, fusion_rule=device.fusion_rule)
    outputs = [row for row in report.rows if ":output:" in row.tensor_index]
    compared = [row for row in outputs if row.compared]
    case.compared_share = len(compared) / len(outputs) if outputs else 0.0
    case.worst_cosine = min((row.metrics.cosine_similarity for row in compared), default=float("nan"))
    floats = [row for row in compared if row.my_dtype in ("float16", "float32")]
    case.fp16_share = sum(row.my_dtype == "float16" for row in floats) / len(floats) if floats else float("nan")
    floor = 0.99999 if case.precision == "fp32" else 0.999
    problems = []
    if case.compared_share < 1.0:
        problems.append(f"{case.compared_share:.0%} compared")
    if not case.worst_cosine > floor:
        problems.append(f"cosine {case.worst_cosine:.4f}")
    if case.precision == "fp16" and not case.fp16_share >= FP16_SHARE_FLOOR:
        problems.append(f"{case.fp16_share:.0%} fp16")
    case.correct = not problems
    case.failure = ", ".join(problems)


def _failure_text(error: Exception) -> str:
    """What ONNX Runtime says is wrong: the text after its last "FAIL : " (before it: a source
    location and a C++ signature), else the end of the message."""
    words = " ".join(str(error).split())
    return f"{type(error).__name__}: {words.rpartition('FAIL : ')[2][-140:]}"


def worker(env: str, models: List[str], scratch: Path) -> Iterator[Case]:
    import onnx
    import onnxruntime

    from opdiff.producers import dump_onnx
    from opdiff.producers.model_inputs import input_specs, random_inputs
    from tests.support.ir_forms import IrForm, light_model_in_form

    versions = {"env": env, "onnx": onnx.__version__, "onnxruntime": onnxruntime.__version__}
    for model_name in models:
        for form in IrForm:
            model = light_model_in_form(model_name, form)
            feeds = random_inputs(input_specs(model), seed=0)
            golden = dump_onnx(model, scratch / "golden", feeds, name="m")
            for fusion in (False, True):
                for precision, converter in [("fp32", "")] + [("fp16", c) for c in CONVERTERS]:
                    case = Case(**versions, model=model_name, form=form.value, fusion=fusion, precision=precision, converter=converter)
                    started = time.perf_counter()
                    try:
                        device = _device_run(model, scratch / "device", feeds, fusion, precision, converter)
                        _judge(case, device, golden.tensor_folder)
                    except Exception as error:  # a converter or session refusing the model is a result here
                        case.failure = _failure_text(error)
                    case.seconds = time.perf_counter() - started
                    shutil.rmtree(scratch / "device", ignore_errors=True)
                    yield case
            shutil.rmtree(scratch / "golden", ignore_errors=True)


# ---------------------------------------------------------------- driver: one worker per environment


def _environment_python(env: str) -> Optional[str]:
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "onnx_env.py"), env, "--extra", "onnxconverter-common==1.16.0"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        print(f"{env}: no environment ({done.stderr.strip()[-300:]})", file=sys.stderr)
        return None
    return done.stdout.strip().splitlines()[-1]


def _cell(case: Case) -> str:
    figures = f"{case.compared_share:.0%} {case.worst_cosine:.6f}" + (f" fp16 {case.fp16_share:.0%}" if case.precision == "fp16" else "")
    if case.correct:
        return f"ok {figures}"
    return f"FAIL {case.failure}"


def tables(cases: List[Case]) -> str:
    """The markdown tables: one row per (env, model, form, fusion), one column per precision/converter,
    then the count of correct runs per converter and environment."""
    columns = [("fp32", "")] + [("fp16", c) for c in CONVERTERS]
    lines = ["| env | model | IR form | fusion | fp32 | " + " | ".join(f"fp16 {c}" for c in CONVERTERS) + " | seconds |",
             "| --- | --- | --- | --- | " + " | ".join("---" for _ in columns) + " | --: |"]
    rows: Dict[tuple, Dict[tuple, Case]] = {}
    for case in cases:
        key = (f"{case.env} ({case.onnx}/{case.onnxruntime})", case.model, case.form, "on" if case.fusion else "off")
        rows.setdefault(key, {})[(case.precision, case.converter)] = case
    for key, by_column in rows.items():
        cells = [_cell(by_column[c]) if c in by_column else "-" for c in columns]
        seconds = sum(case.seconds for case in by_column.values())
        lines.append("| " + " | ".join(key) + " | " + " | ".join(cells) + f" | {seconds:.1f} |")
    lines += ["", "| env | fp32 correct | " + " | ".join(f"fp16 {c} correct" for c in CONVERTERS) + " |",
              "| --- | --: | " + " | ".join("--:" for _ in CONVERTERS) + " |"]
    for env in dict.fromkeys(case.env for case in cases):
        mine = [case for case in cases if case.env == env]
        counts = [f"{sum(c.correct for c in mine if (c.precision, c.converter) == col)}/{sum((c.precision, c.converter) == col for c in mine)}"
                  for col in columns]
        lines.append(f"| {env} | " + " | ".join(counts) + " |")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", default="newest,oldest", help="comma-separated: newest, oldest")
    parser.add_argument("--models", default="", help="comma-separated light models (default: all)")
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # internal: run the matrix in this interpreter, JSON lines out
    args = parser.parse_args(argv)
    if args.worker:
        with tempfile.TemporaryDirectory(prefix="opdiff-matrix-") as scratch:
            for case in worker(args.worker, [m for m in args.models.split(",") if m], Path(scratch)):
                print(json.dumps(asdict(case)), flush=True)
        return 0
    from rich.console import Console

    from opdiff.producers.onnx.light_models import light_model_names

    console = Console(stderr=True)
    models = args.models or ",".join(light_model_names())
    cases: List[Case] = []
    for env in [e for e in args.envs.split(",") if e]:
        python = _environment_python(env)
        if python is None:
            continue
        environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        with subprocess.Popen([python, __file__, "--worker", env, "--models", models], stdout=subprocess.PIPE, text=True, env=environment) as child:
            assert child.stdout is not None
            for line in child.stdout:
                case = Case(**json.loads(line))
                cases.append(case)
                console.print(f"{env} {case.model} {case.form} fusion {'on' if case.fusion else 'off'} {case.precision} {case.converter}: "
                              f"{'ok' if case.correct else 'FAIL ' + case.failure} ({case.seconds:.1f} s)", markup=False, highlight=False)
    text = tables(cases)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

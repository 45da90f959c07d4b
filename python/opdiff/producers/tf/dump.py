"""`dump_tf`: one run of a frozen TensorFlow graph on the CPU, in graph mode, written as golden
.npy files. The CLI `opdiff dump-tf` is a thin layer over it.

Output folder layout (dump-onnx's golden run; with ``fp16``, its device run)::

    DIR/golden/            {escaped op}.{output index}.{timestamp}.npy (+ mapping.csv); a
                           Placeholder x is the output 0 of the Data op x that atc makes of it
    DIR/dump/              fp16: {op_type}.{escaped op}.{task}.{stream}.{timestamp}, the Ascend
                           dump format, and DIR/fusion_rule.json beside it (.device_dump)
    DIR/model.pb           the graph that ran (its random ops seeded; fp16: its rounding Casts added)
    DIR/inputs/{input}.npy the input values, for --input in another run (and for the device run)
    DIR/manifest.json      what ran, timings, notes, the random ops and the tensors not fetched
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np

from opdiff.conventions.dump_names import golden_file_name
from opdiff.conventions.keep_dtype import KeepList
from opdiff.fileio.atomic import write_bytes
from opdiff.producers.file_names import file_safe_name, timestamp_now
from opdiff.producers.golden_writer import TensorOrigin, write_golden
from opdiff.producers.run_record import save_inputs, write_manifest
from opdiff.producers.tf.device_dump import DeviceDumps, WrittenTensors
from opdiff.producers.tf.fetch import FetchResult, NotFetched, fetch_all_outputs
from opdiff.producers.tf.fp16 import Fp16Graph, fp16_run_graph
from opdiff.producers.tf.graph import model_outputs, read_graph_def
from opdiff.producers.tf.random_ops import RandomOp, seed_random_ops
from opdiff.producers.tf.support import TfGraphDef, require_tensorflow

PathLike = Union[str, "os.PathLike[str]"]
GOLDEN_FOLDER = "golden"
MODEL_FILE = "model.pb"


@dataclass(frozen=True)
class TfDumpOptions:
    """How to run: the seed of the graph's unseeded random ops, TensorFlow's CPU threads (0: its own
    choice), and whether to run in fp16 (:mod:`.fp16`) with the ops of `keep_fp32` in float32."""

    random_seed: int = 0
    threads: int = 0
    fp16: bool = False
    keep_fp32: KeepList = field(default_factory=KeepList)


@dataclass
class TfDumpResult:
    """What a dump wrote, the random ops and the outputs it could not fetch, and how long each step took (seconds)."""

    folder: Path
    tensor_folder: Path
    files: int
    model_path: Path
    timestamp: int
    ops: int
    random_ops: List[RandomOp] = field(default_factory=list)
    not_fetched: List[NotFetched] = field(default_factory=list)
    session_runs: int = 0
    seconds: Dict[str, float] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)
    fusion_rule: Optional[Path] = None  # beside an fp16 run's device dumps


def dump_tf(model: Union[PathLike, TfGraphDef], folder: PathLike, feeds: Mapping[str, np.ndarray],
            options: TfDumpOptions = TfDumpOptions(), *, name: str = "") -> TfDumpResult:
    """Run the frozen graph `model` (a .pb path or a GraphDef, left unchanged) with `feeds`
    (Placeholder name -> value) and write the golden file of every op output a session can fetch
    (with ``options.fp16``, the device dump of every op and the fusion rule). ValueError naming a
    kept op the graph lacks."""
    tf = require_tensorflow()
    if not isinstance(model, tf.compat.v1.GraphDef):
        name = name or Path(os.fspath(model)).stem
        model = read_graph_def(model)
    name = file_safe_name(name or "model")
    frozen = run_frozen(model, feeds, options)
    fetched, rounding = frozen.fetched, frozen.rounding
    notes = [f"{fetched.runs} session runs: {len(fetched.not_fetched)} op outputs could not be fetched (manifest: not_fetched)"
             ] if fetched.runs > 1 or fetched.not_fetched else []
    if rounding is not None:
        notes += [f"{len(rounding.rounded)} ops computed in fp16"] + [f"op {op} kept in fp32" for op in rounding.kept]
    ran = rounding.graph_def if rounding is not None else frozen.graph_def
    run = TfRun(name, MODEL_FILE, ran.SerializeToString(), len(frozen.graph_def.node), feeds, fetched.tensors, fetched.not_fetched,
                frozen.random_ops, fetched.runs, frozen.seconds, notes, {"outputs": frozen.outputs})
    if rounding is None:
        return write_tf_run(Path(folder), run, asdict(options))
    return write_tf_run(Path(folder), run, asdict(options), DeviceDumps(frozen.graph_def, rounding, name))


@dataclass
class FrozenRun:
    """One run of a frozen graph: the model's graph as it ran (random ops seeded), the graph an fp16
    run computed (None for float32), every tensor fetched, the random ops, the model outputs
    (:func:`~opdiff.producers.tf.graph.model_outputs`) and the seconds of each step."""

    graph_def: TfGraphDef
    rounding: Optional[Fp16Graph]
    fetched: FetchResult
    random_ops: List[RandomOp]
    outputs: List[str]
    seconds: Dict[str, float]


def run_frozen(graph_def: TfGraphDef, feeds: Mapping[str, np.ndarray], options: TfDumpOptions = TfDumpOptions()) -> FrozenRun:
    """dump-tf's run of `graph_def` (a copy: the argument is left unchanged) with `feeds`, as
    `options` ask; precision's golden is this run in float32. ValueError naming a kept op the
    graph lacks; RunFailedError when nothing beyond the inputs can be fetched."""
    tf = require_tensorflow()
    started = time.perf_counter()
    copy = tf.compat.v1.GraphDef()
    copy.CopyFrom(graph_def)
    random_ops = seed_random_ops(copy, options.random_seed)
    rounding = fp16_run_graph(copy, options.keep_fp32) if options.fp16 else None
    seconds = {"prepare": time.perf_counter() - started}
    t = time.perf_counter()
    ran = rounding.graph_def if rounding is not None else copy
    fetched = fetch_all_outputs(ran, feeds, options.threads, rounding.casts if rounding is not None else frozenset())
    seconds["run"] = time.perf_counter() - t
    return FrozenRun(copy, rounding, fetched, random_ops, model_outputs(copy), seconds)


@dataclass
class TfRun:
    """What one TensorFlow run gave, to be written: the model's name, the file the graph that ran
    goes to and its bytes, its op count, the feeds, the tensors (``op:k``), what has no tensor and
    why, the random ops, the session runs, timings, notes and the manifest's own extra fields."""

    name: str
    model_file: str
    model_bytes: bytes
    ops: int
    feeds: Mapping[str, np.ndarray]
    tensors: Mapping[str, np.ndarray]
    not_fetched: List[NotFetched]
    random_ops: List[RandomOp]
    session_runs: int
    seconds: Dict[str, float]
    notes: List[str]
    extra: Dict[str, Any] = field(default_factory=dict)


TensorWriter = Callable[[Path, Mapping[str, np.ndarray], int], WrittenTensors]  # (out, tensors, timestamp)


def write_golden_tensors(out: Path, tensors: Mapping[str, np.ndarray], timestamp: int) -> WrittenTensors:
    """The golden files of `tensors` (``op:k``) under ``out/golden``."""
    kept, origins, clashes = _golden_tensors(tensors, timestamp)
    files, notes = write_golden(out / GOLDEN_FOLDER, kept, origins, timestamp)
    return WrittenTensors(out / GOLDEN_FOLDER, len(files), clashes + notes)


def write_tf_run(out: Path, run: TfRun, options: Mapping[str, Any], write_tensors: TensorWriter = write_golden_tensors) -> TfDumpResult:
    """Write `run` under `out`: its tensors (golden/, or what `write_tensors` writes), inputs/, the
    graph that ran and manifest.json (`options`: the run's options, as recorded)."""
    out.mkdir(parents=True, exist_ok=True)
    timestamp = timestamp_now()
    t = time.perf_counter()
    written = write_tensors(out, run.tensors, timestamp)
    seconds = {**run.seconds, "write": time.perf_counter() - t}
    notes = run.notes + written.notes + _random_notes(run.random_ops)
    model_path = write_bytes(out / run.model_file, run.model_bytes)
    save_inputs(out / "inputs", run.feeds)
    result = TfDumpResult(out, written.folder, written.files, model_path, timestamp, run.ops, run.random_ops,
                          run.not_fetched, run.session_runs, seconds, notes, written.fusion_rule)
    write_manifest(out / "manifest.json", model=run.name, kind=written.kind, tensors=result.tensor_folder, files=result.files,
                   fusion_rule=written.fusion_rule,
                   timestamp=timestamp, ops=result.ops, mapped_share=None, options=options, seconds=seconds, notes=notes,
                   **run.extra, session_runs=run.session_runs, random_ops=[asdict(op) for op in run.random_ops],
                   not_fetched=[asdict(item) for item in run.not_fetched])
    return result


def _golden_tensors(tensors: Mapping[str, np.ndarray], timestamp: int) -> Tuple[Dict[str, np.ndarray], Dict[str, TensorOrigin], List[str]]:
    """The tensors to write with their origins (``op:k`` is output k of op), leaving out a tensor
    whose golden name an earlier op's output already has (``a/b`` and ``a_b`` escape alike); notes on those."""
    kept: Dict[str, np.ndarray] = {}
    origins: Dict[str, TensorOrigin] = {}
    owner: Dict[str, str] = {}
    notes: List[str] = []
    for tensor, array in tensors.items():
        op, _, index = tensor.rpartition(":")
        file_name = golden_file_name(op, int(index), timestamp)
        if file_name in owner:
            notes.append(f"tensor {tensor}: not written, its golden name is that of {owner[file_name]}")
            continue
        owner[file_name] = tensor
        kept[tensor] = array
        origins[tensor] = TensorOrigin(op, int(index))
    return kept, origins, notes


def _random_notes(random_ops: List[RandomOp]) -> List[str]:
    if not random_ops:
        return []
    names = ", ".join(op.op for op in random_ops[:10]) + (" ..." if len(random_ops) > 10 else "")
    return [f"{len(random_ops)} random ops (manifest: random_ops), seeded for a repeatable run; their tensors cannot match "
            f"a device run's: {names}"]

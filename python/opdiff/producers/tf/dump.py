"""`dump_tf`: one run of a frozen TensorFlow graph on the CPU, in graph mode, written as golden
.npy files. The CLI `opdiff dump-tf` is a thin layer over it.

Output folder layout (dump-onnx's golden run)::

    DIR/golden/            {escaped op}.{output index}.{timestamp}.npy (+ mapping.csv); a
                           Placeholder x is the output 0 of the Data op x that atc makes of it
    DIR/model.pb           the graph that ran (its random ops seeded)
    DIR/inputs/{input}.npy the input values, for --input in another run (and for the device run)
    DIR/manifest.json      what ran, timings, notes, the random ops and the tensors not fetched
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Tuple, Union

import numpy as np

from opdiff.conventions.dump_names import golden_file_name
from opdiff.fileio.atomic import write_bytes
from opdiff.producers.file_names import file_safe_name, timestamp_now
from opdiff.producers.golden_writer import TensorOrigin, write_golden
from opdiff.producers.run_record import save_inputs, write_manifest
from opdiff.producers.tf.fetch import NotFetched, fetch_all_outputs
from opdiff.producers.tf.graph import read_graph_def
from opdiff.producers.tf.random_ops import RandomOp, seed_random_ops
from opdiff.producers.tf.support import TfGraphDef, require_tensorflow

PathLike = Union[str, "os.PathLike[str]"]
GOLDEN_FOLDER = "golden"
MODEL_FILE = "model.pb"


@dataclass(frozen=True)
class TfDumpOptions:
    """How to run: the seed of the graph's unseeded random ops, and TensorFlow's CPU threads (0: its own choice)."""

    random_seed: int = 0
    threads: int = 0


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


def dump_tf(model: Union[PathLike, TfGraphDef], folder: PathLike, feeds: Mapping[str, np.ndarray],
            options: TfDumpOptions = TfDumpOptions(), *, name: str = "") -> TfDumpResult:
    """Run the frozen graph `model` (a .pb path or a GraphDef, left unchanged) with `feeds`
    (Placeholder name -> value) and write the golden file of every op output a session can fetch."""
    tf = require_tensorflow()
    started = time.perf_counter()
    if isinstance(model, tf.compat.v1.GraphDef):
        graph_def = tf.compat.v1.GraphDef()
        graph_def.CopyFrom(model)
    else:
        name = name or Path(os.fspath(model)).stem
        graph_def = read_graph_def(model)
    name = file_safe_name(name or "model")
    random_ops = seed_random_ops(graph_def, options.random_seed)
    seconds = {"prepare": time.perf_counter() - started}
    t = time.perf_counter()
    fetched = fetch_all_outputs(graph_def, feeds, options.threads)
    seconds["run"] = time.perf_counter() - t
    notes = [f"{fetched.runs} session runs: {len(fetched.not_fetched)} op outputs could not be fetched (manifest: not_fetched)"
             ] if fetched.runs > 1 or fetched.not_fetched else []
    run = TfRun(name, MODEL_FILE, graph_def.SerializeToString(), len(graph_def.node), feeds, fetched.tensors, fetched.not_fetched,
                random_ops, fetched.runs, seconds, notes)
    return write_tf_run(Path(folder), run, asdict(options))


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


def write_tf_run(out: Path, run: TfRun, options: Mapping[str, Any]) -> TfDumpResult:
    """Write `run` under `out`: golden/, inputs/, the graph that ran and manifest.json (`options`: the
    run's options, as recorded)."""
    out.mkdir(parents=True, exist_ok=True)
    timestamp = timestamp_now()
    t = time.perf_counter()
    tensors, origins, clashes = _golden_tensors(run.tensors, timestamp)
    files, write_notes = write_golden(out / GOLDEN_FOLDER, tensors, origins, timestamp)
    seconds = {**run.seconds, "write": time.perf_counter() - t}
    notes = run.notes + clashes + write_notes + _random_notes(run.random_ops)
    model_path = write_bytes(out / run.model_file, run.model_bytes)
    save_inputs(out / "inputs", run.feeds)
    result = TfDumpResult(out, out / GOLDEN_FOLDER, len(files), model_path, timestamp, run.ops, run.random_ops,
                          run.not_fetched, run.session_runs, seconds, notes)
    write_manifest(out / "manifest.json", model=run.name, kind="golden", tensors=result.tensor_folder, files=result.files, fusion_rule=None,
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

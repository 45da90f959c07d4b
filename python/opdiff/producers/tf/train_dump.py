"""`dump_tf_train`: one training step of a TF1 checkpoint or a SavedModel on the CPU, every op's
tensors written as golden .npy files (forward, backward, the optimiser's updates, the variable
reads). The CLI ``opdiff dump-tf MODEL --train-op NAME`` is a thin layer over it.

Output folder layout (dump_tf's, with the meta graph as the model)::

    DIR/golden/            {escaped op}.{output index}.{timestamp}.npy (+ mapping.csv); a
                           Placeholder x is the output 0 of the Data op x
    DIR/model.meta         the MetaGraphDef that ran (its random ops seeded)
    DIR/inputs/{input}.npy the input values
    DIR/manifest.json      what ran (with the train op and the checkpoint), timings, notes, the
                           random ops and the op outputs without a tensor, with why

Each op output's value is the one it had when its op ran in the step, as tfdbg's DebugIdentity
records it (training_step.py says what that means for variables and updates). The variables are
restored into a session of their own: the checkpoint is only read.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Mapping, Union

import numpy as np

from opdiff.producers.file_names import file_safe_name
from opdiff.producers.tf.dump import TfDumpOptions, TfDumpResult, TfRun, write_tf_run
from opdiff.producers.tf.random_ops import seed_random_ops
from opdiff.producers.tf.support import require_tensorflow
from opdiff.producers.tf.training_model import TrainingModel, read_training_model, train_op_name
from opdiff.producers.tf.training_step import run_training_step

PathLike = Union[str, "os.PathLike[str]"]
META_GRAPH_FILE = "model.meta"


@dataclass(frozen=True)
class TfTrainOptions:
    """The train op to run once, and how (dump_tf's options: the random ops' seed, CPU threads)."""

    train_op: str
    run: TfDumpOptions = field(default_factory=TfDumpOptions)


def dump_tf_train(model: Union[PathLike, TrainingModel], folder: PathLike, feeds: Mapping[str, np.ndarray],
                  options: TfTrainOptions, *, name: str = "") -> TfDumpResult:
    """Restore `model` (a ``.meta`` path, a SavedModel folder or a read TrainingModel), run
    `options.train_op` once with `feeds` (Placeholder name -> value) and write every op output of
    the step under `folder`. ValueError on an unknown train op, RunFailedError when the step fails.

    >>> dump_tf_train("model.ckpt.meta", "golden_run", {"x": x}, TfTrainOptions("train"))  # doctest: +SKIP
    """
    require_tensorflow()
    started = time.perf_counter()
    training = model if isinstance(model, TrainingModel) else read_training_model(model)
    train_op = train_op_name(training, options.train_op)
    meta_graph = type(training.meta_graph)()
    meta_graph.CopyFrom(training.meta_graph)
    random_ops = seed_random_ops(meta_graph.graph_def, options.run.random_seed)
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    seconds = {"prepare": time.perf_counter() - started}
    t = time.perf_counter()
    # the step's Event files (every tensor of the step) go beside the golden files they become
    step = run_training_step(training, meta_graph, train_op, feeds, options.run.threads, scratch=out)
    seconds["run"] = time.perf_counter() - t
    run = TfRun(file_safe_name(name or _stem(training)), META_GRAPH_FILE, meta_graph.SerializeToString(), len(meta_graph.graph_def.node),
                feeds, step.tensors, step.not_fetched, random_ops, 1, seconds, training.notes + step.notes,
                {"train_op": train_op, "checkpoint": os.fspath(training.checkpoint)})
    return write_tf_run(out, run, {"train_op": train_op, **asdict(options.run)})


def _stem(training: TrainingModel) -> str:
    """``model.ckpt.meta`` -> ``model``; a SavedModel folder -> its name."""
    base = training.path.name
    return base.split(".")[0] if training.path.is_file() else base


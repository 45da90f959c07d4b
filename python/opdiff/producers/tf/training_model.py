"""A TensorFlow training graph with its variables: a TF1 checkpoint (``model.ckpt.meta`` beside
``model.ckpt.index`` and ``model.ckpt.data-*``) or a SavedModel folder (``saved_model.pb`` and
``variables/``), read as a MetaGraphDef and restored into a fresh session.

The MetaGraphDef is read as a protobuf, not imported, so that its random ops can be seeded
(random_ops.py) before TensorFlow builds the graph: an op's attributes cannot change afterwards.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, List, Tuple, Union

from opdiff.producers.tf.graph import upstream
from opdiff.producers.tf.support import require_tensorflow

PathLike = Union[str, "os.PathLike[str]"]
TfMetaGraphDef = Any  # tf.compat.v1.MetaGraphDef
SAVED_MODEL_FILE = "saved_model.pb"
TRAIN_TAG = "train"
META_SUFFIX = ".meta"


class RestoreError(ValueError):
    """The checkpoint's values do not restore into the graph (damaged, or of another graph)."""


@dataclass
class TrainingModel:
    """The meta graph of `path` (a ``.meta`` file or a SavedModel folder) and the checkpoint prefix
    its saver restores the variables from (``model.ckpt``, ``DIR/variables/variables``)."""

    path: Path
    meta_graph: TfMetaGraphDef
    checkpoint: Path
    notes: List[str] = field(default_factory=list)

    def op_names(self) -> List[str]:
        return [node.name for node in self.meta_graph.graph_def.node]


def read_training_model(path: PathLike) -> TrainingModel:
    """The training model at `path`; FileNotFoundError naming the missing file (the .meta, the
    checkpoint's .index or its data files), ValueError naming a file that is not what it should be."""
    model = Path(path)
    if model.is_dir():
        return _read_saved_model(model)
    if not model.is_file():
        raise FileNotFoundError(f"{model}: no such file")
    if model.suffix != META_SUFFIX:
        raise ValueError(f"{model}: a training step runs a checkpoint's {META_SUFFIX} file or a SavedModel folder")
    meta_graph = _parse(model, require_tensorflow().compat.v1.MetaGraphDef(), "a TensorFlow MetaGraphDef (.meta)")
    prefix = model.with_suffix("")
    _check_checkpoint(prefix)
    return TrainingModel(model, meta_graph, prefix)


def _read_saved_model(folder: Path) -> TrainingModel:
    """The meta graph tagged "train" of a SavedModel (else its only one, else its first, with a note)."""
    from tensorflow.core.protobuf import saved_model_pb2

    pb = folder / SAVED_MODEL_FILE
    if not pb.is_file():
        raise FileNotFoundError(f"{pb}: no such file (a SavedModel folder holds it)")
    saved = _parse(pb, saved_model_pb2.SavedModel(), "a SavedModel")
    graphs = list(saved.meta_graphs)
    if not graphs:
        raise ValueError(f"{pb}: a SavedModel without a meta graph")
    tagged = [graph for graph in graphs if TRAIN_TAG in graph.meta_info_def.tags]
    chosen = (tagged or graphs)[0]
    notes = [] if tagged or len(graphs) == 1 else [
        f"{pb}: no meta graph tagged {TRAIN_TAG!r}; ran the first, tagged {', '.join(chosen.meta_info_def.tags) or 'nothing'}"]
    prefix = folder / "variables" / "variables"
    _check_checkpoint(prefix)
    return TrainingModel(folder, chosen, prefix, notes)


def _parse(path: Path, message: Any, what: str) -> Any:
    try:
        message.ParseFromString(path.read_bytes())
    except Exception as error:  # protobuf's DecodeError (its type differs between protobuf's backends)
        raise ValueError(f"{path}: not {what} ({error})") from None
    return message


def _check_checkpoint(prefix: Path) -> None:
    """FileNotFoundError naming the first file of the checkpoint `prefix` that is missing."""
    index = prefix.with_name(prefix.name + ".index")
    if not index.is_file():
        raise FileNotFoundError(f"{index}: no such file (the checkpoint's index, needed to restore the variables)")
    if not any(prefix.parent.glob(prefix.name + ".data-*")):
        raise FileNotFoundError(f"{prefix}.data-00000-of-00001: no such file (the checkpoint's values; none of {prefix.name}.data-*)")


def train_op_name(model: TrainingModel, name: str) -> str:
    """The op that `--train-op NAME` names (``NAME:0`` names it too); ValueError when the graph has none."""
    op = name.split(":")[0] if ":" in name else name
    if op not in set(model.op_names()):
        raise ValueError(f"--train-op {name}: {model.path} has no op of that name")
    return op


def needed_graph_def(model: TrainingModel, train_op: str) -> Any:
    """A GraphDef of the ops `train_op` needs (its Placeholders are the step's inputs)."""
    graph_def = model.meta_graph.graph_def
    needed = upstream(graph_def, train_op)
    kept = require_tensorflow().compat.v1.GraphDef()
    kept.node.extend(node for node in graph_def.node if node.name in needed)
    return kept


def restored_session(model: TrainingModel, meta_graph: TfMetaGraphDef, config: Any) -> Tuple[Any, Any]:
    """(graph, session): `meta_graph` (the model's, perhaps seeded) imported on the CPU, its
    devices cleared, and its variables restored from the model's checkpoint by its own saver; the
    caller closes the session. Nothing is written back to the checkpoint; RestoreError when it does
    not restore."""
    tf = require_tensorflow()
    graph = tf.Graph()
    with graph.as_default():
        saver = tf.compat.v1.train.import_meta_graph(meta_graph, clear_devices=True)
    session = tf.compat.v1.Session(graph=graph, config=config)
    try:
        if saver is not None:
            with graph.as_default():
                saver.restore(session, os.fspath(model.checkpoint))
    except Exception as error:  # TensorFlow's OpError types: a damaged or mismatched checkpoint
        session.close()
        raise RestoreError(f"{model.checkpoint}: the variables could not be restored ({_first_line(error)})") from None
    return graph, session


def _first_line(error: Exception) -> str:
    text = getattr(error, "message", None) or str(error)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__

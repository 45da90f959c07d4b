"""One training step of a restored graph, with every op output recorded as tfdbg records it.

Why not fetch the tensors, as fetch.py does for a frozen graph: in a training step the variables
change during the run. A fetched ``Identity`` of a ``VariableV2`` (``w/read``) shares the
variable's buffer, so the session hands back the value after ``ApplyGradientDescent`` updated it
in place, not the value the forward pass used. The step therefore runs once, with a
``DebugIdentity`` watch on every output of every op (the RunOptions that tfdbg's
``DumpingDebugWrapperSession`` sets): TensorFlow copies each watched tensor as soon as its op has
produced it and writes the copy as an ``Event`` file. Those files are read back here, so each op
output gets the value it had when its op ran in this step:

* forward and backward ops (``gradients/...``): their outputs;
* ``VariableV2`` (a reference output): the variable before the update; its ``Identity`` read the
  same; a ``ReadVariableOp``: the value it read;
* ``ApplyGradientDescent``, ``ApplyAdam``, ``Assign`` ... (a reference output): the variable just
  after that op updated it;
* ``ResourceApplyAdam``, ``AssignVariableOp`` ... have no outputs: nothing is recorded for them (a
  later ``ReadVariableOp`` in the same step, if any, holds the new value);
* resource and variant outputs (``VarHandleOp``'s handle) are handles, not values: not watched.

An op that the train op does not need does not run and has no tensor (the save and restore ops,
the initialisers). An op that runs more than once (inside a while loop) keeps its last value.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

import numpy as np

from opdiff.producers.tf.fetch import NotFetched, RunFailedError, error_reason, session_config
from opdiff.producers.tf.graph import function_ops, upstream
from opdiff.producers.tf.support import TfGraphDef, require_tensorflow
from opdiff.producers.tf.training_model import TfMetaGraphDef, TrainingModel, restored_session

DEBUG_OP = "DebugIdentity"


@dataclass
class StepTensors:
    """The tensors of one step by name (``op:k``) in graph order, what was not recorded and why, notes."""

    tensors: Dict[str, np.ndarray]
    not_fetched: List[NotFetched]
    notes: List[str] = field(default_factory=list)


def run_training_step(model: TrainingModel, meta_graph: TfMetaGraphDef, train_op: str, feeds: Mapping[str, np.ndarray],
                      threads: int = 0, scratch: Optional[Path] = None) -> StepTensors:
    """Restore `model`'s variables into `meta_graph`, run `train_op` once with `feeds` (Placeholder
    name -> value) and return every op output the step computed; RunFailedError when it fails.
    The Event files go to a temporary folder under `scratch` (default: the system's), removed after."""
    tf = require_tensorflow()
    graph, session = restored_session(model, meta_graph, session_config(tf, threads))
    with session, tempfile.TemporaryDirectory(prefix=".opdiff-tfdbg-", dir=scratch) as folder:
        options, watched, skipped = _watch_every_output(graph, f"file://{folder}", upstream(meta_graph.graph_def, train_op))
        try:
            session.run(train_op, {f"{name}:0": value for name, value in feeds.items()}, options=options)
        except (tf.errors.OpError, ValueError, TypeError) as error:
            raise RunFailedError(error_reason(error)) from None
        recorded, counts, uninitialised = read_debug_dumps(Path(folder))
    # a fed Placeholder does not run (the session passes the feed in its place): its tensor is the feed
    recorded.update({f"{name}:0": np.asarray(value) for name, value in feeds.items()})
    return _step_tensors(meta_graph.graph_def, train_op, watched, recorded, counts, skipped + uninitialised)


NO_OUTPUTS_REASON = ("no outputs: it updates a resource variable in place (ResourceApply*, AssignVariableOp) or only "
                     "orders other ops (NoOp); a later ReadVariableOp of the step, if any, holds the new value")


def _watch_every_output(graph: Any, url: str, needed: Set[str]) -> Tuple[Any, List[str], List[NotFetched]]:
    """RunOptions with a DebugIdentity watch on every output of every op but handles; the watched
    tensors in graph order; the handles, and the ops of the step that have no outputs, as not fetched."""
    tf = require_tensorflow()
    options = tf.compat.v1.RunOptions()
    # TensorFlow stops writing debug dumps past a process-wide byte budget (TFDBG_DISK_BYTES_LIMIT):
    # each step starts from zero, as a new tfdbg run does
    options.debug_options.reset_disk_byte_usage = True
    watches = options.debug_options.debug_tensor_watch_opts
    watched: List[str] = []
    skipped: List[NotFetched] = []
    for op in graph.get_operations():
        if not op.outputs and op.name in needed:
            skipped.append(NotFetched(op.name, None, NO_OUTPUTS_REASON))
        for slot, tensor in enumerate(op.outputs):
            if tensor.dtype.base_dtype in (tf.resource, tf.variant):
                skipped.append(NotFetched(op.name, slot, f"dtype {tensor.dtype.base_dtype.name}: a handle, not values"))
                continue
            watches.add(node_name=op.name, output_slot=slot, debug_ops=[DEBUG_OP], debug_urls=[url])
            watched.append(f"{op.name}:{slot}")
    return options, watched, skipped


def read_debug_dumps(folder: Path) -> Tuple[Dict[str, np.ndarray], Dict[str, int], List[NotFetched]]:
    """The DebugIdentity Event files under `folder` (one per tensor and execution, each holding a
    TensorProto): tensor name -> its value (the last execution's), how many times it was written,
    and the tensors written without values (uninitialised), as not fetched."""
    tf = require_tensorflow()
    dumps: Dict[str, List[Tuple[float, Any]]] = {}
    for path in folder.rglob(f"*_{DEBUG_OP}_*"):
        if not path.is_file():
            continue
        event = tf.compat.v1.Event()
        event.ParseFromString(path.read_bytes())
        for value in event.summary.value:
            node, slot, _ = value.node_name.rsplit(":", 2)
            dumps.setdefault(f"{node}:{slot}", []).append((event.wall_time, value.tensor))
    values: Dict[str, np.ndarray] = {}
    uninitialised: List[NotFetched] = []
    for name, written in dumps.items():
        proto = max(written, key=lambda item: item[0])[1]
        shape = [int(dim.size) for dim in proto.tensor_shape.dim]
        # as tfdbg's reader: a tensor with elements but no content was never written (uninitialised)
        if proto.tensor_content or proto.string_val or int(np.prod(shape)) == 0:
            values[name] = np.asarray(tf.make_ndarray(proto))
        else:
            op, _, slot = name.rpartition(":")
            uninitialised.append(NotFetched(op, int(slot), "uninitialised in this step: TensorFlow wrote no values"))
    return values, {name: len(written) for name, written in dumps.items()}, uninitialised


def _step_tensors(graph_def: TfGraphDef, train_op: str, watched: List[str], recorded: Dict[str, np.ndarray],
                  counts: Dict[str, int], not_fetched: List[NotFetched]) -> StepTensors:
    """The recorded tensors in graph order, and why the others have none: ops the train op needs
    that did not run (a cond's untaken branch) are listed; ops it does not need are counted."""
    needed = upstream(graph_def, train_op)
    tensors = {name: recorded[name] for name in watched if name in recorded}
    listed_already = {f"{item.op}:{item.output}" for item in not_fetched}
    missing = [name for name in watched if name not in recorded and name not in listed_already]
    listed = [NotFetched(op, int(slot), "not computed in this step: on the branch of a cond that was not taken")
              for op, _, slot in (name.rpartition(":") for name in missing) if op in needed]
    functions = [NotFetched(f.op, None, f"inside function {f.function}: tfdbg v1 records no op of a function", f.function)
                 for f in function_ops(graph_def)]
    unneeded = {name.rpartition(":")[0] for name in missing} - needed
    notes = [f"{len(unneeded)} ops did not run: the train op {train_op} does not need them (save, restore, initialisers)"] if unneeded else []
    repeated = sorted(name for name, count in counts.items() if count > 1 and name in tensors)
    if repeated:
        notes.append(f"{len(repeated)} tensors were computed more than once in the step (a loop): the last value is written, "
                     f"e.g. {', '.join(repeated[:5])}")
    return StepTensors(tensors, not_fetched + listed + functions, notes)

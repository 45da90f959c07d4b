"""Fetching every op output of a TensorFlow graph in graph mode (tf.compat.v1 sessions).

The ops inside a TF1 while loop and those of library functions are listed without a try. All the
other tensors come from as few session runs as possible: one, unless some fetch fails. A failed
run is retried without the tensor its error points at (or, when it points at none, as two
halves), so a tensor that cannot be fetched (on the dead branch of a cond) costs two runs, not
the whole dump. Every run uses a fresh session, so that seeded random ops draw the same numbers
in each and the tensors of different runs agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import AbstractSet, Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple, Union

import numpy as np

from opdiff.producers.tf.graph import consumers, downstream, function_ops, imported_graph, loop_interior
from opdiff.producers.tf.support import TfGraph, TfGraphDef, require_tensorflow

_RETVAL_NODE = re.compile(r"\{\{node _retval_(.+?)_(\d+)_\d+\}\}")
_FAILED_NODE = re.compile(r"\{\{node ([^}]+)\}\}")
_RETVAL_INDEX = re.compile(r"Retval\[(\d+)\]")
LOOP_REASON = "inside a while loop: it takes one value per iteration, and a session fetches none of them"


@dataclass(frozen=True)
class NotFetched:
    """An op output with no golden file, and why (`output` None: every output of the op;
    `function`: the library function the op belongs to)."""

    op: str
    output: Optional[int]
    reason: str
    function: str = ""


@dataclass
class FetchResult:
    """The fetched tensors by name (``op:index``), in graph order; what could not be fetched; how
    many session runs it took."""

    tensors: Dict[str, np.ndarray]
    not_fetched: List[NotFetched]
    runs: int = 0
    inputs: List[str] = field(default_factory=list)


class RunFailedError(RuntimeError):
    """The graph does not run with these feeds: nothing beyond the inputs could be fetched."""


def fetch_all_outputs(graph_def: TfGraphDef, feeds: Mapping[str, np.ndarray], threads: int = 0,
                      skip_ops: AbstractSet[str] = frozenset()) -> FetchResult:
    """Run `graph_def` on the CPU with `feeds` (Placeholder name -> value) and fetch every op output
    a session can hand back, but those of `skip_ops` (ops a run adds to the model's graph, listed
    nowhere); RunFailedError when none beyond the inputs can be fetched."""
    tf = require_tensorflow()
    graph = imported_graph(graph_def)
    not_fetched = [NotFetched(f.op, None, _function_reason(f.function, f.callers), f.function) for f in function_ops(graph_def)]
    interior = loop_interior(graph_def)
    names: List[str] = []
    for op in graph.get_operations():
        if op.name in skip_ops:
            continue
        for position, tensor in enumerate(op.outputs):
            if op.name in interior:
                not_fetched.append(NotFetched(op.name, position, LOOP_REASON))
            elif tensor.dtype in (tf.resource, tf.variant):
                not_fetched.append(NotFetched(op.name, position, f"dtype {tensor.dtype.name}: a handle, not values"))
            elif _unwritten_reserve_space(op, position):
                not_fetched.append(NotFetched(op.name, position, RESERVE_SPACE_REASON))
            else:
                names.append(tensor.name)
    fetcher = _Fetcher(graph, {f"{name}:0": value for name, value in feeds.items()}, session_config(tf, threads), consumers(graph_def))
    inputs = [f"{name}:0" for name in feeds]
    probe = fetcher.run(inputs) if inputs else None  # feeds of the wrong shape or dtype fail every run: say so once
    if isinstance(probe, Exception):
        raise RunFailedError(error_reason(probe))
    fetcher.fetch(names)
    order = {name: k for k, name in enumerate(names)}
    tensors = dict(sorted(fetcher.values.items(), key=lambda item: order[item[0]]))
    not_fetched += [NotFetched(*_split(name), reason) for name, reason in sorted(fetcher.failed.items(), key=lambda item: order[item[0]])]
    if fetcher.failed and not set(tensors) - set(inputs):
        raise RunFailedError(next(iter(fetcher.failed.values())))
    return FetchResult(tensors, not_fetched, fetcher.runs, inputs)


class _Fetcher:
    """Session runs of one graph with one feed, collecting values and the failures' reasons."""

    def __init__(self, graph: TfGraph, feed: Dict[str, np.ndarray], config: Any, readers: Dict[str, List[str]]) -> None:
        self.graph, self.feed, self.config, self.readers = graph, feed, config, readers
        self.values: Dict[str, np.ndarray] = {}
        self.failed: Dict[str, str] = {}
        self.runs = 0

    def fetch(self, names: Sequence[str]) -> None:
        """Fetch `names`. A run that an op's error ends is retried without that op's tensors and
        those computed from them; one that a fetch ends, without the tensor its error names,
        confirmed by a run of that tensor alone; any other, as two halves."""
        pending = [list(names)]
        while pending:
            batch = pending.pop()
            if not batch:
                continue
            outcome = self.run(batch)
            if not isinstance(outcome, Exception):
                self.values.update(zip(batch, outcome))
                continue
            if len(batch) == 1:
                self.failed[batch[0]] = error_reason(outcome)
                continue
            hit = self._after_failed_op(outcome, batch)
            if hit:
                pending.append([name for name in batch if name not in hit])
                continue
            named = _named_tensor(outcome, batch)
            alone = self.run([named]) if named else None
            if isinstance(alone, Exception):
                self.failed[named] = error_reason(alone)
                pending.append([name for name in batch if name != named])
                continue
            if alone is not None:
                self.values[named] = alone[0]
                batch = [name for name in batch if name != named]
            half = len(batch) // 2
            pending += [batch[half:], batch[:half]]

    def _after_failed_op(self, error: Exception, batch: Sequence[str]) -> Set[str]:
        """The tensors of `batch` that the op named in `error` fails (its own and those computed
        from them), recorded as failed; empty when the error names no op of the graph."""
        node = _FAILED_NODE.search(str(error))
        if node is None or node.group(1).startswith("_retval_") or not _has_op(self.graph, node.group(1)):
            return set()
        failing = node.group(1)
        affected = downstream(self.readers, failing)
        hit = {name for name in batch if name.rpartition(":")[0] in affected}
        reason = error_reason(error)
        for name in hit:
            self.failed[name] = reason if name.rpartition(":")[0] == failing else f"computed from op {failing}, which failed: {reason}"
        return hit

    def run(self, batch: List[str]) -> Union[List[np.ndarray], Exception]:
        """The values of `batch` from one run in a fresh session, or the error that ended it."""
        tf = require_tensorflow()
        self.runs += 1
        try:
            with tf.compat.v1.Session(graph=self.graph, config=self.config) as session:
                return [np.asarray(value) for value in session.run(batch, self.feed)]
        except (tf.errors.OpError, ValueError, TypeError) as error:
            return error


RESERVE_SPACE_REASON = ("reserve space of an inference FusedBatchNorm: TensorFlow leaves it unwritten, so its values "
                        "differ from run to run and no device tensor matches them")


def _unwritten_reserve_space(op: Any, position: int) -> bool:
    """Outputs 3 and up of a FusedBatchNorm (V1, V2, V3) with is_training false: kept for a backward
    pass that inference never runs, and left as whatever memory they were given."""
    return op.type.startswith("FusedBatchNorm") and position >= 3 and not op.get_attr("is_training")


def _has_op(graph: TfGraph, name: str) -> bool:
    try:
        graph.get_operation_by_name(name)
    except (KeyError, ValueError):
        return False
    return True


def session_config(tf: Any, threads: int) -> Any:
    """The CPU alone, and the graph as it is: grappler and the classic optimiser off, so that every
    op runs as written (grappler rewrites an inference FusedBatchNorm into a Mul and an Add under
    its name, and fuses Conv2D with BiasAdd and Relu, which changes the rounding)."""
    config = tf.compat.v1.ConfigProto(device_count={"GPU": 0})
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    config.graph_options.optimizer_options.opt_level = tf.compat.v1.OptimizerOptions.L0
    config.graph_options.optimizer_options.do_constant_folding = False
    if threads > 0:
        config.intra_op_parallelism_threads = threads
        config.inter_op_parallelism_threads = threads
    return config


def _named_tensor(error: Exception, batch: Sequence[str]) -> str:
    """The tensor of `batch` that a session's error points at, or "": the _Retval node it names
    (``_retval_{op}_{output}_{k}``), else its ``Retval[k]``, k counting the fetches in sorted order
    (the order in which a session builds its call frame). A hint only: the caller confirms it."""
    text = str(error)
    node = _RETVAL_NODE.search(text)
    if node and f"{node.group(1)}:{node.group(2)}" in batch:
        return f"{node.group(1)}:{node.group(2)}"
    index = _RETVAL_INDEX.search(text)
    ordered = sorted(set(batch))
    return ordered[int(index.group(1))] if index and int(index.group(1)) < len(ordered) else ""


def error_reason(error: Exception) -> str:
    """Why a tensor could not be fetched, in a line."""
    message = getattr(error, "message", None) or str(error)
    if "has already been set" in message:
        return LOOP_REASON
    if "does not have value" in message:
        return "not computed in this run: it is on the branch of a cond that was not taken"
    # TensorFlow wraps the message: "Graph execution error:", "Detected at node 'x' defined at ..."
    # with the Python stack that built it, "Node: 'x'", the message, "[[{{node x}}]]"
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    ends = [k for k, line in enumerate(lines) if line.startswith("Node: ")]
    kept = [line for line in lines[ends[-1] + 1 if ends else 0:] if line != "Graph execution error:" and not line.startswith("[[")]
    return kept[0] if kept else type(error).__name__


def _function_reason(function: str, callers: Sequence[str]) -> str:
    run_by = f", run by {', '.join(callers)}" if callers else ""
    return f"inside function {function}{run_by}: the ops of a function run inside their caller and cannot be fetched"


def _split(tensor: str) -> Tuple[str, int]:
    op, _, index = tensor.rpartition(":")
    return op, int(index)

"""The frozen TensorFlow graph of ``--isolate MODEL.pb``: TensorFlow can feed any tensor, so an op
is re-run by feeding its dumped inputs and fetching its original outputs, in one tf.compat.v1
Session on the whole graph, graph optimisation off (as dump-tf runs it). Weights (Const ops, and
what is computed from them alone) are the graph's own."""

from __future__ import annotations

from pathlib import Path
from typing import AbstractSet, Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

import numpy as np

from opdiff.isolate.decode import Dumped
from opdiff.isolate.source_model import IsolateInputError
from opdiff.isolate.subgraph import NotIsolated
from opdiff.producers.tf.fetch import session_config
from opdiff.producers.tf.graph import CONTROL_FLOW_TYPES, imported_graph, loop_interior, read_model_graph_def, tensor_name
from opdiff.producers.tf.random_ops import SEEDED_BY_ATTRIBUTES, SEEDED_BY_INPUTS
from opdiff.producers.tf.support import MissingTensorFlowError, TfGraphDef, require_tensorflow

RANDOM_TYPES = SEEDED_BY_ATTRIBUTES | SEEDED_BY_INPUTS
# Ops that pass a constant on unchanged: a weight read through them is still the Const's value.
READ_TYPES = frozenset({"Identity", "Snapshot"})


def load_tf_source(path: Path, threads: int = 0) -> TfSource:
    """The frozen GraphDef at `path` (or the graph of a training step's ``.meta``), ready to re-run
    its ops; IsolateInputError naming the file when it is not one or TensorFlow is missing."""
    if not path.is_file():
        raise IsolateInputError(f"{path}: --isolate: no such file")
    try:
        return TfSource(path, read_model_graph_def(path), threads)
    except MissingTensorFlowError as error:
        raise IsolateInputError(f"{path}: --isolate: {error}") from None
    except ValueError as error:
        raise IsolateInputError(f"{path}: --isolate: {error}") from None


class TfSource:
    """A SourceGraph (source_graph.py) over a frozen TensorFlow graph. Tensors are ``op:k``."""

    runtime = "TensorFlow"

    def __init__(self, path: Path, graph_def: TfGraphDef, threads: int = 0) -> None:
        tf = require_tensorflow()
        self.path = path
        self.graph = imported_graph(graph_def)
        self.nodes: Dict[str, Any] = {node.name: node for node in graph_def.node}
        self.inputs_by_data_op = {node.name: f"{node.name}:0" for node in graph_def.node if node.op == "Placeholder"}
        self._in_loops = loop_interior(graph_def)
        self._config = session_config(tf, threads)
        self._session: Optional[Any] = None
        self._constant: Dict[str, bool] = {}
        self._weights: Dict[str, Optional[np.ndarray]] = {}

    def has_node(self, name: str) -> bool:
        return name in self.nodes

    def tensor_of(self, origin_name: str, output_index: int) -> Optional[str]:
        if origin_name not in self.nodes or self._is_constant(origin_name):
            return None
        outputs = self.graph.get_operation_by_name(origin_name).outputs
        return f"{origin_name}:{output_index}" if 0 <= output_index < len(outputs) else None

    def node_inputs(self, name: str) -> Tuple[str, ...]:
        return tuple(tensor_name(source) for source in self.nodes[name].input if not source.startswith("^"))

    def weight(self, tensor: str) -> Optional[np.ndarray]:
        if tensor not in self._weights:
            self._weights[tensor] = self._const_value(tensor)
        return self._weights[tensor]

    def local_golden(self, original: Tuple[str, ...], feeds: Mapping[str, Dumped], outputs: Sequence[str]) -> Dict[str, np.ndarray]:
        for name in original:
            _check_node(self.nodes[name], name in self._in_loops)
        fed = self._fed_tensors(set(original), feeds.keys(), outputs)
        feed_dict = {tensor: self._feed(tensor, feeds[tensor]) for tensor in fed}
        return dict(zip(outputs, self._run(list(outputs), feed_dict)))

    @property
    def sessions(self) -> int:
        return 0 if self._session is None else 1

    def _fed_tensors(self, original: Set[str], fed: AbstractSet[str], outputs: Sequence[str]) -> List[str]:
        """The fed tensors the outputs are computed from, walking back through the op's own nodes
        (and stopping at constants); NotIsolated where a tensor from outside the op is not fed."""
        used: Dict[str, None] = {}
        stack, seen = list(outputs), set()
        while stack:
            tensor = stack.pop()
            if tensor in seen:
                continue
            seen.add(tensor)
            producer = tensor.rpartition(":")[0]
            if tensor in fed:
                used[tensor] = None
            elif producer in original:
                stack.extend(self.node_inputs(producer))
            elif self._is_constant(producer):
                continue
            elif producer not in self.nodes:
                raise NotIsolated(f"no mapping: tensor {tensor} is not made by an op of {self.path.name}")
            elif self.nodes[producer].op == "Placeholder":
                raise NotIsolated(f"input without a dump: model input {tensor} is not among the op's dumped inputs")
            else:
                raise NotIsolated(f"input without a dump: tensor {tensor} (made by {producer}, outside the op) "
                                  "is not among the op's dumped inputs")
        return list(used)

    def _is_constant(self, op: str) -> bool:
        """Whether op's outputs come from Const ops alone (no input, no random or stateful op)."""
        pending = [op]
        while pending:
            name = pending[-1]
            if name in self._constant:
                pending.pop()
                continue
            node = self.nodes.get(name)
            if node is None:  # not an op of the graph (a name the GraphDef does not hold)
                self._constant[name] = False
                pending.pop()
                continue
            if node.op == "Const":
                self._constant[name] = True
                pending.pop()
                continue
            sources = [tensor_name(s).rpartition(":")[0] for s in node.input if not s.startswith("^")]
            if not sources or node.op in RANDOM_TYPES or node.op in CONTROL_FLOW_TYPES or node.op == "Placeholder":
                self._constant[name] = False
                pending.pop()
                continue
            unknown = [s for s in sources if s not in self._constant]
            if unknown:
                pending.extend(unknown)
                continue
            self._constant[name] = all(self._constant[s] for s in sources)
            pending.pop()
        return self._constant[op]

    def _const_value(self, tensor: str) -> Optional[np.ndarray]:
        """The value of a Const op's tensor, read through Identity ops; None for any other tensor."""
        tf = require_tensorflow()
        op, _, index = tensor.rpartition(":")
        node = self.nodes.get(op)
        while node is not None and node.op in READ_TYPES and node.input:
            op, _, index = tensor_name(node.input[0]).rpartition(":")
            node = self.nodes.get(op)
        if node is None or node.op != "Const" or index != "0":
            return None
        value: np.ndarray = tf.make_ndarray(node.attr["value"].tensor)
        return value

    def _feed(self, tensor: str, dumped: Dumped) -> np.ndarray:
        value = dumped.to_numpy()
        target = self.graph.get_tensor_by_name(tensor)
        wanted = np.dtype(target.dtype.as_numpy_dtype)
        if value.dtype.kind == "f" or str(value.dtype).startswith(("bfloat", "float8")):
            value = value.astype(wanted if wanted.kind == "f" else np.float32)
        elif value.dtype != wanted:
            value = value.astype(wanted)
        shape = target.shape
        if shape.rank is not None and shape.rank != value.ndim and shape.is_fully_defined() and shape.num_elements() == value.size:
            value = value.reshape(shape.as_list())  # a reshape folded into a TransData: same elements, same order
        return value

    def _run(self, fetches: List[str], feed_dict: Dict[str, np.ndarray]) -> List[np.ndarray]:
        tf = require_tensorflow()
        if self._session is None:
            self._session = tf.compat.v1.Session(graph=self.graph, config=self._config)
        try:
            return [np.asarray(value) for value in self._session.run(fetches, feed_dict)]
        except (tf.errors.OpError, ValueError, TypeError) as error:
            raise NotIsolated(f"TensorFlow refuses the fetch: {_first_line(error)}") from None


def _check_node(node: Any, in_loop: bool) -> None:
    if node.op in RANDOM_TYPES:
        raise NotIsolated(f"random op: {node.name} ({node.op}) draws new values on every run")
    if node.op in CONTROL_FLOW_TYPES or in_loop:
        where = "inside a while loop" if in_loop and node.op not in CONTROL_FLOW_TYPES else "runs a subgraph or a branch of its own"
        raise NotIsolated(f"control flow: {node.name} ({node.op}) {where}")


def _first_line(error: BaseException) -> str:
    text = (getattr(error, "message", None) or str(error)).strip().splitlines()
    return text[0][:300] if text else type(error).__name__

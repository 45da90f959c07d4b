"""A frozen TensorFlow GraphDef: reading it, its Placeholders as input specs, its model outputs, the
ops that only pass tensors on, and the parts of it whose tensors a session cannot hand back (the
ops of functions, the insides of while loops)."""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Set, Tuple, Union

import numpy as np

from opdiff.producers.model_inputs import InputSpec
from opdiff.producers.tf.support import TfGraph, TfGraphDef, require_tensorflow

PathLike = Union[str, "os.PathLike[str]"]

# Ops that route tensors through control flow instead of computing values.
CONTROL_FLOW_TYPES = frozenset({
    "Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit", "NextIteration",
    "RefNextIteration", "LoopCond", "While", "StatelessWhile", "If", "StatelessIf", "Case", "StatelessCase",
})
# Ops that compute nothing: the model's inputs and weights, and ops that hand a tensor on unchanged
# (a frozen graph reads every weight through an Identity) or route it (control flow). A device has
# no precision to choose for them: dump-tf's fp16 run leaves them as they are, and they are never
# candidates of `opdiff precision`.
PASS_THROUGH_TYPES = frozenset({
    "Placeholder", "PlaceholderWithDefault", "Const", "Identity", "IdentityN", "Snapshot", "StopGradient",
    "PreventGradient", "NoOp",
}) | CONTROL_FLOW_TYPES


def read_graph_def(path: PathLike) -> TfGraphDef:
    """The GraphDef of a frozen ``.pb`` file; ValueError naming the file when it is not one."""
    tf = require_tensorflow()
    graph_def = tf.compat.v1.GraphDef()
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        graph_def.ParseFromString(data)
    except Exception as error:  # protobuf's DecodeError (its type differs between protobuf's backends)
        raise ValueError(f"{os.fspath(path)}: not a frozen TensorFlow GraphDef ({error})") from None
    if not graph_def.node:
        raise ValueError(f"{os.fspath(path)}: a GraphDef without ops (is it a frozen .pb?)")
    return graph_def


def read_model_graph_def(path: PathLike) -> TfGraphDef:
    """The GraphDef of a frozen ``.pb``, or of the MetaGraphDef in a ``.meta`` file (the graph of a
    training step, as dump-tf --train-op writes it); ValueError naming the file when it is neither."""
    if os.fspath(path).endswith(".meta"):
        meta_graph = require_tensorflow().compat.v1.MetaGraphDef()
        try:
            meta_graph.ParseFromString(Path(path).read_bytes())
        except Exception as error:  # protobuf's DecodeError (its type differs between protobuf's backends)
            raise ValueError(f"{os.fspath(path)}: not a TensorFlow MetaGraphDef ({error})") from None
        if not meta_graph.graph_def.node:
            raise ValueError(f"{os.fspath(path)}: a MetaGraphDef without ops")
        return meta_graph.graph_def
    return read_graph_def(path)


def imported_graph(graph_def: TfGraphDef) -> TfGraph:
    """`graph_def` imported into a new tf.Graph, its ops placed on the CPU, names as they are."""
    tf = require_tensorflow()
    graph = tf.Graph()
    with graph.as_default(), tf.device("/CPU:0"):
        tf.compat.v1.import_graph_def(graph_def, name="")
    return graph


def tensor_name(source: str) -> str:
    """A GraphDef data input (``op`` or ``op:k``) as a tensor name ``op:k``.

    >>> tensor_name("dense/MatMul"), tensor_name("split:1")
    ('dense/MatMul:0', 'split:1')
    """
    return source if ":" in source else f"{source}:0"


def model_outputs(graph_def: TfGraphDef) -> List[str]:
    """The model outputs of a frozen graph, in graph order: the floating-point outputs of every op
    that no op reads or waits for, but Placeholders and Consts (what a caller of a frozen graph
    fetches: nothing else in a GraphDef says which tensors are its outputs). An op some of whose
    outputs are read (a FusedBatchNorm's unused batch statistics, a Switch's other branch) is none.
    """
    readers = consumers(graph_def)
    return [tensor.name for op in imported_graph(graph_def).get_operations()
            if op.type not in ("Placeholder", "Const") and op.name not in readers
            for tensor in op.outputs if tensor.dtype.is_floating]


def input_specs(graph_def: TfGraphDef, shapes: Mapping[str, Tuple[int, ...]], given: Set[str]) -> Tuple[List[InputSpec], List[str]]:
    """The Placeholders of `graph_def` as inputs, in graph order, with their unknown dims taken from
    `shapes` (``--input-shape``), else 1; and notes on the dims so set.

    ValueError when `shapes` names no Placeholder, disagrees with a known dim or rank, or when an
    input of unknown rank has neither a shape nor a file (`given`: inputs fed from files).
    """
    tf = require_tensorflow()
    placeholders = [node for node in graph_def.node if node.op == "Placeholder"]
    names = {node.name for node in placeholders}
    unknown = sorted(set(shapes) - names)
    if unknown:
        raise ValueError(f"--input-shape names no Placeholder: {', '.join(unknown)} (inputs: {', '.join(sorted(names)) or 'none'})")
    specs: List[InputSpec] = []
    notes: List[str] = []
    for node in placeholders:
        dtype = np.dtype(tf.dtypes.as_dtype(node.attr["dtype"].type).as_numpy_dtype)
        # "shape" is tested first: reading a missing key of a protobuf map inserts it
        has_shape = "shape" in node.attr and not node.attr["shape"].shape.unknown_rank
        known = [int(d.size) for d in node.attr["shape"].shape.dim] if has_shape else None
        wanted = shapes.get(node.name)
        if known is None:
            if wanted is None and node.name not in given:
                raise ValueError(f"input {node.name}: its rank is unknown; give --input-shape {node.name}:D1,D2,... or --input {node.name}=FILE.npy")
            specs.append(InputSpec(node.name, dtype, wanted or ()))
            continue
        if wanted is not None:
            if len(wanted) != len(known) or any(k >= 0 and k != w for k, w in zip(known, wanted)):
                raise ValueError(f"--input-shape {node.name}:{','.join(map(str, wanted))} does not fit its shape {known} (-1: unknown)")
            specs.append(InputSpec(node.name, dtype, wanted))
            continue
        dynamic = tuple(f"dim {position}" for position, size in enumerate(known) if size < 0)
        specs.append(InputSpec(node.name, dtype, tuple(size if size >= 0 else 1 for size in known), dynamic))
        if dynamic and node.name not in given:
            notes.append(f"input {node.name}: unknown dims {', '.join(dynamic)} set to 1 (--input-shape gives them)")
    return specs, notes


@dataclass(frozen=True)
class FunctionOp:
    """An op of a function of the graph's library (a While or If body, a tf.function): it runs
    inside the op that calls the function, and no session can fetch its tensors."""

    function: str
    op: str
    callers: Tuple[str, ...]


def function_ops(graph_def: TfGraphDef) -> List[FunctionOp]:
    """Every op of every function in the library of `graph_def`, with the graph ops that call it."""
    callers: Dict[str, List[str]] = {}
    for node in graph_def.node:
        for value in node.attr.values():
            called = [value.func.name] if value.HasField("func") else [f.name for f in value.list.func]
            for name in called:
                if name:
                    callers.setdefault(name, []).append(node.name)
    return [FunctionOp(function.signature.name, node.name, tuple(callers.get(function.signature.name, ())))
            for function in graph_def.library.function for node in function.node_def]


def consumers(graph_def: TfGraphDef) -> Dict[str, List[str]]:
    """Op name -> the ops that read one of its outputs or wait for it (a control input)."""
    readers: Dict[str, List[str]] = {}
    for node in graph_def.node:
        for source in node.input:
            readers.setdefault(source.lstrip("^").split(":")[0], []).append(node.name)
    return readers


def downstream(readers: Mapping[str, List[str]], op: str) -> Set[str]:
    """`op` and every op that depends on it, directly or through others."""
    found = {op}
    queue = deque([op])
    while queue:
        for reader in readers.get(queue.popleft(), ()):
            if reader not in found:
                found.add(reader)
                queue.append(reader)
    return found


def upstream(graph_def: TfGraphDef, op: str) -> Set[str]:
    """`op` and every op it needs, through its inputs and its control inputs."""
    inputs = {node.name: [source.lstrip("^").split(":")[0] for source in node.input] for node in graph_def.node}
    return downstream(inputs, op)  # the same walk, along inputs instead of readers


def loop_interior(graph_def: TfGraphDef) -> Set[str]:
    """The ops inside a TF1 while loop (reached from an Enter op without passing an Exit op): their
    tensors take one value per iteration, so a fetch of them may fail. The Enter and Exit ops are
    outside: their tensors are the loop's input and its result."""
    readers = consumers(graph_def)
    kind = {node.name: node.op for node in graph_def.node}
    inside: Set[str] = set()
    queue = deque(name for name, op in kind.items() if op in ("Enter", "RefEnter"))
    while queue:
        for consumer in readers.get(queue.popleft(), ()):
            if consumer not in inside and kind.get(consumer) not in ("Enter", "RefEnter", "Exit", "RefExit"):
                inside.add(consumer)
                queue.append(consumer)
    return inside

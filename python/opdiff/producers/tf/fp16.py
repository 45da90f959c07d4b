"""dump-tf's fp16 run: a frozen graph computed as a device computes it under ATC's
``--precision_mode force_fp16``, every op but those kept in float32 reading and writing fp16.

TensorFlow's CPU kernels compute in float32, so the run graph rounds around them. A *computing* op
(one with a float32 output whose type is not in
:data:`~opdiff.producers.tf.graph.PASS_THROUGH_TYPES`) that is not kept reads each float32 input
through a Cast to float16 and back, computes in float32, and the ops that read its float32 outputs
read them through the same pair of Casts: it reads fp16 values, computes in float32 inside, and
writes a value rounded to fp16 (an overflow past 65,504 becomes inf). That is what a device's fp16
op does for element-wise ops (one correctly rounded operation gives the same result either way)
and for matrix products (fp16 in, float32 accumulation, fp16 out); it does not model an op that
rounds its intermediate steps (a fused op whose inner sums an fp16 kernel keeps in fp16).

A kept op reads float32 from a kept op, a Placeholder or a Const, and the fp16-rounded value from
an op that is not kept (on the device a Cast turns that fp16 output to float32); it writes float32.
Pass-through ops (Identity, control flow, ...) hand on what they read. Float64 and other types are
left as they are, and so are the ops of library functions (a session cannot reach inside them).
One pair of Casts per rounded tensor is shared by all its readers; the model's own ops keep their
names, so every tensor of the model is fetched under its own name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Set, Tuple

import numpy as np

from opdiff.conventions.keep_dtype import KeepList
from opdiff.producers.tf.graph import PASS_THROUGH_TYPES, imported_graph, tensor_name
from opdiff.producers.tf.support import TfGraph, TfGraphDef, require_tensorflow

HALF_SUFFIX = "opdiff_fp16"  # the Cast to float16 of a rounded tensor: {op}/opdiff_fp16_{k}
BACK_SUFFIX = "opdiff_fp32"  # and its Cast back to float32, which the readers read


@dataclass(frozen=True)
class ComputingOp:
    """An op of the graph that computes a float32 output: what a device runs in fp16."""

    name: str
    op_type: str
    position: int  # in the GraphDef's node order


def computing_ops(graph: TfGraph) -> List[ComputingOp]:
    """The computing ops of an imported graph (see the module notes), in graph order."""
    tf = require_tensorflow()
    found = []
    for position, op in enumerate(graph.get_operations()):
        if op.type not in PASS_THROUGH_TYPES and any(t.dtype == tf.float32 for t in op.outputs):
            found.append(ComputingOp(op.name, op.type, position))
    return found


@dataclass
class Fp16Graph:
    """The graph an fp16 run computes (`graph_def`, the Casts added), the ops rounded, the ops kept
    in float32, the model's float32 tensors (``op:k``) and the Cast ops added (fetched by no one)."""

    graph_def: TfGraphDef
    rounded: FrozenSet[str]
    kept: Tuple[str, ...]
    float32: FrozenSet[str]
    casts: Set[str] = field(default_factory=set)

    def written(self, tensor: str, value: np.ndarray) -> np.ndarray:
        """What the op of `tensor` writes, from its float32 `value`: fp16 for a rounded op."""
        if tensor in self.float32 and tensor.rpartition(":")[0] in self.rounded:
            return _half(value)
        return value

    def read(self, op: str, tensor: str, value: np.ndarray) -> np.ndarray:
        """What `op` reads of `tensor` (`value`: the tensor as its own op computed it in float32)."""
        if op in self.rounded and tensor in self.float32:
            return _half(value)
        return self.written(tensor, value)


def _half(value: np.ndarray) -> np.ndarray:
    """`value` rounded to fp16 as TensorFlow's Cast rounds it (to nearest even, past 65,504: inf)."""
    with np.errstate(over="ignore"):  # an overflow to inf is what the fp16 run is for
        return value.astype(np.float16)


def fp16_run_graph(graph_def: TfGraphDef, keep: KeepList = KeepList()) -> Fp16Graph:
    """The run graph of `graph_def` in fp16 with the ops of `keep` kept in float32: its op names,
    and ``OpType::X`` lines as the TensorFlow op type X (see the module notes). ValueError naming
    an op name of `keep` that the graph lacks."""
    tf = require_tensorflow()
    check_kept(graph_def, keep)
    graph = imported_graph(graph_def)
    present = {node.name for node in graph_def.node}
    computing = computing_ops(graph)
    kept = tuple(op.name for op in computing if op.name in keep.names or op.op_type in keep.types)
    rounded = frozenset(op.name for op in computing) - set(kept)
    float32 = frozenset(t.name for op in graph.get_operations() for t in op.outputs if t.dtype == tf.float32)
    run = tf.compat.v1.GraphDef()
    run.CopyFrom(graph_def)
    result = Fp16Graph(run, rounded, kept, float32)
    edits: List[Tuple[int, int, str]] = []  # (node, input, the rounded tensor it reads instead)
    for node_index, node in enumerate(run.node):
        for input_index, source in enumerate(node.input):
            tensor = tensor_name(source)
            if source.startswith("^") or tensor not in float32:
                continue
            if node.name in rounded or tensor.rpartition(":")[0] in rounded:
                edits.append((node_index, input_index, tensor))
    copies: Dict[str, str] = {}
    taken = set(present)
    for node_index, input_index, tensor in edits:
        if tensor not in copies:
            copies[tensor] = _add_rounding(result, tensor, taken)
        run.node[node_index].input[input_index] = copies[tensor]
    return result


def check_kept(graph_def: TfGraphDef, keep: KeepList) -> None:
    """ValueError naming the first op name of `keep` that `graph_def` lacks."""
    present = {node.name for node in graph_def.node}
    unknown = [name for name in keep.names if name not in present]
    if unknown:
        raise ValueError(f"no op named {unknown[0]!r} in the graph to keep in fp32")


def _add_rounding(result: Fp16Graph, tensor: str, taken: Set[str]) -> str:
    """Add the Casts of `tensor` to fp16 and back to `result`'s graph; the name of the second."""
    tf = require_tensorflow()
    op, _, index = tensor.rpartition(":")
    source = op if index == "0" else tensor
    names = []
    for suffix, (src, dst) in ((HALF_SUFFIX, (tf.float32, tf.float16)), (BACK_SUFFIX, (tf.float16, tf.float32))):
        name = _free_name(f"{op}/{suffix}_{index}", taken)
        cast = result.graph_def.node.add()
        cast.name, cast.op = name, "Cast"
        cast.input.append(source)
        cast.attr["SrcT"].type = src.as_datatype_enum
        cast.attr["DstT"].type = dst.as_datatype_enum
        cast.attr["Truncate"].b = False
        result.casts.add(name)
        names.append(name)
        source = name
    return names[-1]


def _free_name(wanted: str, taken: Set[str]) -> str:
    name, suffix = wanted, 0
    while name in taken:
        suffix += 1
        name = f"{wanted}_{suffix}"
    taken.add(name)
    return name

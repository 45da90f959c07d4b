"""The subgraph of the source model that computes an NPU op's original outputs from the tensors its
dump holds: the nodes between them, as a small ONNX model whose inputs are those tensors and the
model's weights, and its signature (ops that share one share an ONNX Runtime session)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import AbstractSet, Dict, Sequence, Tuple

from opdiff.isolate.source_model import SourceModel
from opdiff.producers.onnx.support import OnnxModel, OnnxNode, OnnxTensor

RANDOM_OPS = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli"})
CONTROL_FLOW_OPS = frozenset({"If", "Loop", "Scan", "SequenceMap"})
# Integer initializers (shapes, axes, pads) and scalars stay in the subgraph by value, as some ops
# need them constant; float tensors (weights, biases, slopes) become inputs, so that ops of one
# structure share a session whatever their weights.
FLOAT_TYPES = frozenset({1, 10, 11, 16})  # ONNX FLOAT, FLOAT16, DOUBLE, BFLOAT16
ONNX_FLOAT = 1  # a feed of no known type is a float32 tensor


class NotIsolated(Exception):
    """An op that cannot be isolated; the message is the isolation CSV's Reason."""


@dataclass(frozen=True)
class Subgraph:
    """Nodes of the source model (model order) from `feeds` (dumped tensors) and `weights`
    (initializers fed as inputs) to `outputs`; `signature` names its structure."""

    nodes: Tuple[OnnxNode, ...]
    feeds: Tuple[str, ...]
    weights: Tuple[str, ...]
    outputs: Tuple[str, ...]
    signature: str


def extract_subgraph(model: SourceModel, original_nodes: AbstractSet[int], fed: AbstractSet[str], outputs: Sequence[str]) -> Subgraph:
    """The subgraph computing `outputs` from `fed`, walking back only through the op's own nodes
    (`original_nodes`, by id) and Constant nodes; NotIsolated with the reason where it cannot."""
    chosen: Dict[int, OnnxNode] = {}  # model position -> node
    feeds: Dict[str, None] = {}
    weights: Dict[str, None] = {}
    stack = list(reversed(outputs))
    seen: Dict[str, None] = {}
    while stack:
        tensor = stack.pop()
        if not tensor or tensor in seen:
            continue
        seen[tensor] = None
        if tensor in fed:
            feeds[tensor] = None
            continue
        if tensor in model.initializers:
            weights[tensor] = None
            continue
        produced = model.producers.get(tensor)
        if produced is None:
            raise NotIsolated(f"input without a dump: model input {tensor} is not among the op's dumped inputs")
        node = produced[0]
        if id(node) not in original_nodes and node.op_type != "Constant":
            raise NotIsolated(f"input without a dump: tensor {tensor} (made by {node.name or node.op_type}, outside the op) "
                              "is not among the op's dumped inputs")
        _check_node(node)
        chosen[model.positions[id(node)]] = node
        stack.extend(reversed([t for t in node.input if t]))
    ordered = tuple(chosen[k] for k in sorted(chosen))
    feed_list = _first_use(ordered, feeds, outputs)
    weight_list = tuple(w for w in _first_use(ordered, weights, outputs) if not _embedded(model, w))
    return Subgraph(ordered, feed_list, weight_list, tuple(outputs), _signature(model, ordered, feed_list, weight_list, outputs))


def _check_node(node: OnnxNode) -> None:
    if node.op_type in RANDOM_OPS:
        raise NotIsolated(f"random op: {node.name} ({node.op_type}) draws new values on every run")
    if node.op_type in CONTROL_FLOW_OPS:
        raise NotIsolated(f"control flow: {node.name} ({node.op_type}) runs a subgraph of its own")


def _first_use(nodes: Sequence[OnnxNode], names: Dict[str, None], outputs: Sequence[str]) -> Tuple[str, ...]:
    """`names` in the order the nodes read them (outputs that are fed directly last)."""
    order: Dict[str, None] = {}
    for node in nodes:
        for tensor in node.input:
            if tensor in names:
                order[tensor] = None
    order.update({tensor: None for tensor in outputs if tensor in names})
    return tuple(order)


def _embedded(model: SourceModel, name: str) -> bool:
    init = model.initializers[name]
    elements = 1
    for dim in init.dims:
        elements *= dim
    return init.data_type not in FLOAT_TYPES or elements <= 1


def _canonical_names(nodes: Sequence[OnnxNode], feeds: Sequence[str], weights: Sequence[str]) -> Dict[str, str]:
    names = {tensor: f"f{k}" for k, tensor in enumerate(feeds)}
    names.update({tensor: f"w{k}" for k, tensor in enumerate(weights)})
    for node in nodes:
        for tensor in list(node.input) + list(node.output):
            if tensor and tensor not in names:
                names[tensor] = f"t{len(names)}"
    return names


def _signature(model: SourceModel, nodes: Sequence[OnnxNode], feeds: Sequence[str], weights: Sequence[str], outputs: Sequence[str]) -> str:
    names = _canonical_names(nodes, feeds, weights)
    digest = hashlib.sha256()
    for tensor in list(feeds) + list(weights):
        digest.update(f"in {names[tensor]} {model.elem_types.get(tensor, 0)};".encode())
    for node in nodes:
        digest.update(f"{node.domain}:{node.op_type}({','.join(names.get(t, '') for t in node.input)})->"
                      f"{','.join(names.get(t, '') for t in node.output)};".encode())
        for attribute in node.attribute:
            digest.update(attribute.SerializeToString())
        for tensor in node.input:
            if tensor in model.initializers and tensor not in weights:
                digest.update(model.initializers[tensor].SerializeToString())
    digest.update(("out " + ",".join(names.get(t, "") for t in outputs)).encode())
    return digest.hexdigest()


def subgraph_model(model: SourceModel, subgraph: Subgraph) -> OnnxModel:
    """The subgraph as a model: inputs f0.. (the feeds) and w0.. (the weights), untyped shapes,
    small initializers by value, outputs in `subgraph.outputs` order. Built from the source
    model's own protobuf classes, field by field as onnx.helper's make_graph and make_model build
    it (no need to import onnx whole)."""
    names = _canonical_names(subgraph.nodes, subgraph.feeds, subgraph.weights)
    result = type(model.model)()
    graph = result.graph
    for node in subgraph.nodes:
        renamed = graph.node.add()
        renamed.CopyFrom(node)
        renamed.input[:] = [names[t] if t else "" for t in node.input]
        renamed.output[:] = [names[t] if t else "" for t in node.output]
    graph.name = "isolated"
    for tensor in list(subgraph.feeds) + list(subgraph.weights):
        value = graph.input.add()
        value.name = names[tensor]
        value.type.tensor_type.elem_type = model.elem_types.get(tensor, ONNX_FLOAT)
    for tensor in subgraph.outputs:
        graph.output.add().name = names[tensor]
    embedded: Dict[str, OnnxTensor] = {}
    for node in subgraph.nodes:
        for tensor in node.input:
            if tensor in model.initializers and tensor not in subgraph.weights and tensor not in subgraph.feeds:
                embedded.setdefault(names[tensor], model.initializers[tensor])
    for name, init in embedded.items():
        copy = graph.initializer.add()
        copy.CopyFrom(init)
        copy.name = name
    result.opset_import.extend(model.model.opset_import)
    result.ir_version = max(model.model.ir_version, 4)
    result.functions.extend(model.model.functions)
    return result

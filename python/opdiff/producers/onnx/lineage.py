"""Recovering fusion provenance from tensor names: which original nodes each node of a rewritten
graph (ONNX Runtime-optimised, fp16, quantized) stands for.

ONNX Runtime's fusions keep tensor names: a fused node writes the output tensor of the last node it
replaces, under that tensor's name. So, per node of the rewritten ("device") graph:

* an output whose name is a tensor of the original graph comes from that tensor's producer (name
  mapped); its original op joins the node's original names;
* an original node none of whose outputs survive disappeared inside a fused node: it is assigned to
  the first surviving node its outputs flow into (through other vanished nodes), and joins that
  node's original names;
* an output with a new name from a value-preserving op (Cast, Identity, DequantizeLinear) takes the
  origin of that op's input (pass-through), without adding original names, so that such an op forms
  a group of its own, as a Cast inserted by a compiler does;
* a DequantizeLinear fed by a QuantizeLinear of tensor X stands for X (its fake-quantized value);
  when no node of the rewritten graph writes X itself (a quantized op absorbed it), X's op joins
  the DequantizeLinear's original names. QuantizeLinear outputs (int8 codes) map to nothing.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Set, Tuple

import numpy as np

from opdiff.producers.golden_writer import TensorOrigin
from opdiff.producers.onnx.support import OnnxModel, OnnxNode

PASS_THROUGH = ("Cast", "DequantizeLinear", "Identity")
_VALUE_KEEPING = ("Cast", "Identity")  # ops whose input holds their output's values (up to rounding)



def tensor_origins(model: OnnxModel, input_names: Mapping[str, str]) -> Dict[str, TensorOrigin]:
    """Tensor name -> its producing op and output position, for every node output and real input
    of a prepared model (`input_names`: graph input -> its Data op name)."""
    origins = {tensor: TensorOrigin(op, 0) for tensor, op in input_names.items()}
    for node in model.graph.node:
        for position, tensor in enumerate(node.output):
            if tensor:
                origins[tensor] = TensorOrigin(node.name, position)
    return origins


@dataclass(frozen=True)
class NodeLineage:
    """One node of the rewritten graph: its original op names (original graph order) and, per
    non-empty output, the original tensor it stands for (None when there is none)."""

    name: str
    original_names: Tuple[str, ...]
    output_origins: Tuple[Optional[TensorOrigin], ...]


@dataclass
class Lineage:
    """Provenance of every node of a rewritten graph, plus what could not be placed."""

    nodes: Dict[str, NodeLineage]
    tensor_origins: Dict[str, Optional[TensorOrigin]]  # every rewritten node output and input
    unassigned: List[str] = field(default_factory=list)  # vanished original nodes placed nowhere

    activations: Set[str] = field(default_factory=set)  # tensors that depend on a model input

    @property
    def mapped_share(self) -> float:
        """Share of the rewritten graph's activations (inputs, and node outputs that depend on an
        input) that map to an original tensor. Weights and what is computed from weights alone
        (a quantized model's weight DequantizeLinear) have no golden tensor and are not counted."""
        counted = [origin for tensor, origin in self.tensor_origins.items() if tensor in self.activations]
        if not counted:
            return 1.0
        return sum(origin is not None for origin in counted) / len(counted)


def recover_lineage(original: OnnxModel, origins: Mapping[str, TensorOrigin], rewritten: OnnxModel, rewritten_inputs: Mapping[str, str]) -> Lineage:
    """The lineage of every node of `rewritten` in terms of `original`.

    `origins` maps the original graph's tensors to their golden op and index (node outputs and the
    Data ops of the inputs); `rewritten_inputs` maps the rewritten graph's inputs to their Data op names.

    >>> from onnx import helper, TensorProto
    >>> def model(nodes):
    ...     return helper.make_model(helper.make_graph(nodes, "g", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2])],
    ...                                                [helper.make_tensor_value_info("c", TensorProto.FLOAT, [2])]))
    >>> original = model([helper.make_node("Relu", ["a"], ["b"], name="relu"), helper.make_node("Neg", ["b"], ["c"], name="neg")])
    >>> fused = model([helper.make_node("ReluNeg", ["a"], ["c"], name="fused", domain="x")])
    >>> lineage = recover_lineage(original, tensor_origins(original, {"a": "a"}), fused, {"a": "a"})
    >>> lineage.nodes["fused"].original_names, lineage.nodes["fused"].output_origins, lineage.mapped_share
    (('relu', 'neg'), (TensorOrigin(op='neg', index=0),), 1.0)
    """
    produced: Dict[str, str] = {}  # rewritten tensor -> rewritten node
    for node in rewritten.graph.node:
        for tensor in node.output:
            if tensor:
                produced[tensor] = node.name
    quantized_source = {node.output[0]: node.input[0] for node in rewritten.graph.node if node.op_type == "QuantizeLinear" and node.output}
    dequantized: Dict[str, str] = {}  # DequantizeLinear output -> the tensor its QuantizeLinear read
    for node in rewritten.graph.node:
        if node.op_type == "DequantizeLinear" and node.input and node.input[0] in quantized_source and node.output:
            dequantized[node.output[0]] = quantized_source[node.input[0]]
            source = quantized_source[node.input[0]]
            if source not in produced and source not in rewritten_inputs and source in origins:
                produced[source] = node.name  # the stand-in writer of an absorbed tensor
    rectified = _rectified_by_quantization(rewritten, dequantized)
    surviving = set(produced) | set(rewritten_inputs) | {init.name for init in rewritten.graph.initializer}
    position = {node.name: i for i, node in enumerate(original.graph.node)}
    position.update(dict.fromkeys(set(rewritten_inputs.values()), -1))

    tensor_origins: Dict[str, Optional[TensorOrigin]] = {}
    for tensor in rewritten_inputs:
        tensor_origins[tensor] = origins.get(tensor)
    names_by_node: Dict[str, List[str]] = {node.name: [] for node in rewritten.graph.node}
    outputs_by_node: Dict[str, List[Optional[TensorOrigin]]] = {}
    for node in rewritten.graph.node:
        node_origins: List[Optional[TensorOrigin]] = []
        for tensor in node.output:
            if not tensor:
                continue
            origin = origins.get(tensor)
            if origin is not None:
                names_by_node[node.name].append(origin.op)
            elif tensor in dequantized:
                source = dequantized[tensor]
                origin = tensor_origins.get(source, origins.get(source))
                if origin is not None and produced.get(source) == node.name:
                    names_by_node[node.name].append(origin.op)
                elif tensor in rectified and origins.get(rectified[tensor]) is not None:
                    origin = origins.get(rectified[tensor])
            elif node.op_type in PASS_THROUGH and node.input and node.input[0]:
                origin = tensor_origins.get(node.input[0])
            tensor_origins[tensor] = origin
            node_origins.append(origin)
        outputs_by_node[node.name] = node_origins
    _map_back_through_casts(rewritten, tensor_origins, outputs_by_node, names_by_node)
    _map_back_through_requantized_outputs(rewritten, origins, tensor_origins, outputs_by_node, names_by_node)

    unassigned = _assign_vanished(original, surviving, produced, names_by_node)
    nodes = {
        node.name: NodeLineage(
            node.name,
            tuple(sorted(dict.fromkeys(names_by_node[node.name]), key=lambda op: position.get(op, len(position)))),
            tuple(outputs_by_node[node.name]),
        )
        for node in rewritten.graph.node
    }
    return Lineage(nodes, tensor_origins, unassigned, _activations(rewritten, rewritten_inputs))


def _rectified_by_quantization(rewritten: OnnxModel, dequantized: Mapping[str, str]) -> Dict[str, str]:
    """DequantizeLinear output -> the Relu output it holds, where the quantizer clipped at zero.

    ONNX Runtime quantizes the input of a Relu with the Relu's own range (they share scale and
    zero point): the zero point is the integer type's minimum, so every negative value of X
    becomes 0 and the dequantized tensor is relu(X), not X. When only Relus read it, it stands for
    the Relu's output; compared with X's golden it would look like a broken tensor (cosine ~0.7).
    """
    from onnx import numpy_helper

    initializers = {init.name: init for init in rewritten.graph.initializer}
    quantizers = {node.output[0]: node for node in rewritten.graph.node if node.op_type == "QuantizeLinear" and node.output}
    readers: Dict[str, List[OnnxNode]] = {}
    for node in rewritten.graph.node:
        for tensor in node.input:
            readers.setdefault(tensor, []).append(node)
    found: Dict[str, str] = {}
    for node in rewritten.graph.node:
        if node.op_type != "DequantizeLinear" or not node.output or node.output[0] not in dequantized:
            continue
        quantizer = quantizers[node.input[0]]
        zero_point = initializers.get(quantizer.input[2]) if len(quantizer.input) > 2 else None
        if zero_point is None:
            continue
        values = numpy_helper.to_array(zero_point)
        if values.dtype.kind not in "iu" or values.size == 0 or (values != np.iinfo(values.dtype).min).any():
            continue
        relus = readers.get(node.output[0], [])
        if relus and all(reader.op_type == "Relu" for reader in relus) and len({reader.output[0] for reader in relus}) == 1:
            found[node.output[0]] = relus[0].output[0]
    return found


def _activations(rewritten: OnnxModel, inputs: Mapping[str, str]) -> Set[str]:
    reached = set(inputs)
    for node in rewritten.graph.node:  # graph order is topological
        if any(tensor in reached for tensor in node.input):
            reached.update(tensor for tensor in node.output if tensor)
    return reached


def _map_back_through_casts(
    rewritten: OnnxModel,
    tensor_origins: Dict[str, Optional[TensorOrigin]],
    outputs_by_node: Dict[str, List[Optional[TensorOrigin]]],
    names_by_node: Dict[str, List[str]],
) -> None:
    # A node that writes a new tensor which only Casts read, into original tensors, computed those
    # values: it takes the Cast output's origin and the original op name, the Cast keeps the origin only.
    consumers: Dict[str, List[OnnxNode]] = {}
    for node in rewritten.graph.node:
        for tensor in node.input:
            consumers.setdefault(tensor, []).append(node)
    for node in rewritten.graph.node:
        origins = outputs_by_node[node.name]
        tensors = [t for t in node.output if t]
        for k, tensor in enumerate(tensors):
            if origins[k] is not None:
                continue
            readers = consumers.get(tensor, [])
            casts = [r for r in readers if r.op_type in _VALUE_KEEPING and r.output and tensor_origins.get(r.output[0]) is not None]
            if readers and len(casts) == len(readers):
                origin = tensor_origins[casts[0].output[0]]
                assert origin is not None
                origins[k] = origin
                tensor_origins[tensor] = origin
                names_by_node[node.name].append(origin.op)
                for cast in casts:
                    if origin.op in names_by_node[cast.name]:
                        names_by_node[cast.name].remove(origin.op)


def _map_back_through_requantized_outputs(
    rewritten: OnnxModel,
    origins: Mapping[str, TensorOrigin],
    tensor_origins: Dict[str, Optional[TensorOrigin]],
    outputs_by_node: Dict[str, List[Optional[TensorOrigin]]],
    names_by_node: Dict[str, List[str]],
) -> None:
    # ONNX Runtime's quantizer renames a graph output Y: the node writes a new tensor, and the
    # DequantizeLinear after its QuantizeLinear writes Y. The node computed Y's values: it takes
    # Y's origin and op name; the DequantizeLinear keeps the origin only (a fake-quantized copy).
    writer = {tensor: node for node in rewritten.graph.node for tensor in node.output if tensor}
    for node in rewritten.graph.node:
        if node.op_type != "DequantizeLinear" or not node.output or node.output[0] not in origins:
            continue
        quantize = writer.get(node.input[0])
        if quantize is None or quantize.op_type != "QuantizeLinear":
            continue
        source = quantize.input[0]
        producer = writer.get(source)
        if producer is None or tensor_origins.get(source) is not None:
            continue
        origin = origins[node.output[0]]
        position = [t for t in producer.output if t].index(source)
        outputs_by_node[producer.name][position] = origin
        tensor_origins[source] = origin
        names_by_node[producer.name].append(origin.op)
        if origin.op in names_by_node[node.name]:
            names_by_node[node.name].remove(origin.op)


def _assign_vanished(original: OnnxModel, surviving: Set[str], produced: Mapping[str, str], names_by_node: Dict[str, List[str]]) -> List[str]:
    consumers: Dict[str, List[OnnxNode]] = {}
    for node in original.graph.node:
        for tensor in node.input:
            consumers.setdefault(tensor, []).append(node)
    vanished = {node.name for node in original.graph.node if not any(t in surviving for t in node.output if t)}
    unassigned: List[str] = []
    for node in original.graph.node:
        if node.name not in vanished:
            continue
        target = _first_surviving_consumer(node, consumers, vanished, produced)
        if target is None:
            unassigned.append(node.name)
        else:
            names_by_node[target].append(node.name)
    return unassigned


def _first_surviving_consumer(start: OnnxNode, consumers: Mapping[str, Sequence[OnnxNode]], vanished: Set[str], produced: Mapping[str, str]) -> Optional[str]:
    """Breadth-first from `start` through vanished nodes to the rewritten node producing the first
    surviving original tensor it flows into."""
    queue = deque([start])
    seen = {start.name}
    while queue:
        node = queue.popleft()
        for tensor in node.output:
            for reader in consumers.get(tensor, ()):
                if reader.name in seen:
                    continue
                seen.add(reader.name)
                if reader.name in vanished:
                    queue.append(reader)
                    continue
                target = next((produced[t] for t in reader.output if t in produced), None)
                if target is not None:
                    return target
    return None

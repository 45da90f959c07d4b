"""The source model of ``--isolate``: the ONNX graph the device model was converted from, indexed
by node, tensor and input (Data op) name."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Dict, Iterable, Iterator, Optional, Tuple

from opdiff.producers.onnx.model_prep import prepared_names
from opdiff.producers.onnx.support import OnnxGraph, OnnxModel, OnnxNode, OnnxTensor, infer_shapes, require_onnx, require_onnx_protos


class IsolateInputError(ValueError):
    """The --isolate model cannot be used (not ONNX, or no op maps to it): exit 2 with this message."""


@dataclass
class SourceModel:
    """A loaded source model: nodes by name (as written and as dump-onnx prepares them), the
    producer of every tensor, the initializers, and the graph input of every Data op name."""

    path: Path
    model: OnnxModel
    nodes: Dict[str, OnnxNode] = field(default_factory=dict)
    producers: Dict[str, Tuple[OnnxNode, int]] = field(default_factory=dict)  # tensor -> (node, output position)
    initializers: Dict[str, OnnxTensor] = field(default_factory=dict)
    inputs_by_data_op: Dict[str, str] = field(default_factory=dict)  # Data op name -> graph input
    elem_types: Dict[str, int] = field(default_factory=dict)  # tensor -> ONNX element type, where known
    positions: Dict[int, int] = field(default_factory=dict)  # id(node) -> its position in the graph

    def node(self, name: str) -> Optional[OnnxNode]:
        return self.nodes.get(name)

    def tensor_of(self, origin_name: str, output_index: int) -> Optional[str]:
        """The model tensor a fusion rule's origin (``_datadump_origin_name``, output index) names:
        a node's output, or the graph input of a Data op; None when it names neither."""
        node = self.nodes.get(origin_name)
        if node is not None:
            outputs = list(node.output)
            return outputs[output_index] if 0 <= output_index < len(outputs) and outputs[output_index] else None
        if output_index == 0:
            return self.inputs_by_data_op.get(origin_name)
        return None


def load_source_model(path: Path) -> SourceModel:
    """Read and index the model at `path`; IsolateInputError naming the file when it is not ONNX."""
    protos, _ = require_onnx_protos()
    if not path.is_file():
        raise IsolateInputError(f"{path}: --isolate: no such file")
    try:
        model = _read_model(path, protos)
    except Exception as error:  # protobuf's DecodeError and onnx's own errors
        raise IsolateInputError(f"{path}: --isolate: not an ONNX model ({type(error).__name__}: {error})") from None
    if not model.graph.node:
        raise IsolateInputError(f"{path}: --isolate: not an ONNX model (no graph nodes; --isolate takes the source .onnx, or a frozen TensorFlow .pb)")
    return index_model(path, model)


def _read_model(path: Path, protos: ModuleType) -> OnnxModel:
    """``onnx.load(path)``: a binary ``.onnx`` whose tensors all lie inside it is parsed with onnx's
    own ModelProto alone; anything else (weights in external files, another suffix, which onnx.load
    may read as text or JSON) goes through onnx.load, importing onnx whole."""
    if path.suffix == ".onnx":
        model = protos.ModelProto.FromString(path.read_bytes())
        if not any(tensor.data_location == type(tensor).EXTERNAL for tensor in _tensors(model)):
            return model
    onnx, _ = require_onnx()
    return onnx.load(os.fspath(path))


def _tensors(model: OnnxModel) -> Iterator[OnnxTensor]:
    """Every tensor whose data onnx.load may read from an external file: initializers and tensor
    attributes, of nested graphs and functions too (at least those onnx.external_data_helper visits)."""
    yield from _graph_tensors(model.graph)
    for function in model.functions:
        yield from _node_tensors(function.node)


def _graph_tensors(graph: OnnxGraph) -> Iterator[OnnxTensor]:
    yield from graph.initializer
    yield from _node_tensors(graph.node)


def _node_tensors(nodes: Iterable[OnnxNode]) -> Iterator[OnnxTensor]:
    for node in nodes:
        for attribute in node.attribute:
            if attribute.HasField("t"):
                yield attribute.t
            yield from attribute.tensors
            if attribute.HasField("g"):
                yield from _graph_tensors(attribute.g)
            for subgraph in attribute.graphs:
                yield from _graph_tensors(subgraph)


def index_model(path: Path, model: OnnxModel) -> SourceModel:
    source = SourceModel(path, model)
    graph = model.graph
    source.initializers = {init.name: init for init in graph.initializer}
    names, input_names = prepared_names(graph)  # dump-onnx's names: the fusion rules of its runs use them
    for position_in_graph, (raw, named) in enumerate(zip(graph.node, names)):
        source.positions[id(raw)] = position_in_graph
        for name in (raw.name, named):
            if name:
                source.nodes.setdefault(name, raw)
        for position, tensor in enumerate(raw.output):
            if tensor:
                source.producers[tensor] = (raw, position)
    for tensor, op in input_names.items():
        source.inputs_by_data_op.setdefault(tensor, tensor)
        source.inputs_by_data_op.setdefault(op, tensor)
    source.elem_types = _elem_types(model)
    return source


def _elem_types(model: OnnxModel) -> Dict[str, int]:
    """Element types of the graph's tensors from onnx's shape inference (over a copy without its
    large weights); tensors of ops it does not know stay out."""
    from opdiff.producers.onnx.runner import hollow_copy

    types: Dict[str, int] = {init.name: init.data_type for init in model.graph.initializer}
    try:
        inferred = infer_shapes(hollow_copy(model))
    except Exception:  # inference is a help here: without it, dumped dtypes decide
        inferred = model
    for value in [*inferred.graph.input, *inferred.graph.output, *inferred.graph.value_info]:
        if value.type.HasField("tensor_type") and value.type.tensor_type.elem_type:
            types.setdefault(value.name, value.type.tensor_type.elem_type)
    return types

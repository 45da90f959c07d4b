"""A Caffe net as an ONNX model whose tensors keep every layer's tops.

Tensor names. A blob written for the first time keeps its name; a layer that writes a blob again
(in place: a ReLU whose top is its bottom) writes a new tensor ``{blob}@{layer}``, and later layers
read that one. So the graph is in SSA form, as ONNX requires, and every layer's output survives
under its own layer: the golden of a convolution followed by an in-place ReLU is the convolution's
output, not the ReLU's.

Golden names. Top ``k`` of layer ``L`` is op ``L`` output ``k``, as ATC names a Caffe model's
original ops (the layer names, the tops in order); an input blob is output 0 of the Data op of
its Input layer (or of its own name, for NetParameter.input).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple

from opdiff.producers.caffe.builder import CaffeLayerError, GraphBuilder, LayerContext, Shape
from opdiff.producers.caffe.layer_table import CONVERTERS, INPUT_TYPES
from opdiff.producers.caffe.reader import CaffeNet
from opdiff.producers.golden_writer import TensorOrigin

OPSET = 13


@dataclass
class ConvertedNet:
    """The ONNX model of a net, and what names what in it."""

    model: Any  # onnx.ModelProto
    origins: Dict[str, TensorOrigin]  # tensor -> (layer, top index); inputs -> (their Data op, 0)
    input_ops: Dict[str, str]  # graph input -> its Data op (the Input layer's name)
    layer_nodes: Dict[str, List[str]] = field(default_factory=dict)  # layer -> its ONNX nodes
    layer_types: Dict[str, str] = field(default_factory=dict)
    in_place: List[Tuple[str, str]] = field(default_factory=list)  # (layer, blob) of each top a layer rewrote


def convert_net(net: CaffeNet, input_shapes: Mapping[str, Shape]) -> ConvertedNet:
    """Convert `net`; `input_shapes` overrides the shapes the prototxt gives its inputs.

    CaffeLayerError (a ValueError) naming the layer and its type for a layer it cannot run.
    """
    from onnx import TensorProto, helper

    builder = GraphBuilder()
    current: Dict[str, str] = {}  # blob -> the tensor holding its latest value
    origins: Dict[str, TensorOrigin] = {}
    input_ops: Dict[str, str] = {}
    for blob, shape in net.inputs.items():
        _add_input(builder, blob, blob, input_shapes.get(blob, shape), current, origins, input_ops)
    layer_types: Dict[str, str] = {}
    in_place: List[Tuple[str, str]] = []
    for layer in net.layers:
        layer_types[layer.name] = layer.type
        if layer.type in INPUT_TYPES:
            for position, (blob, shape) in enumerate(_input_layer_shapes(layer, input_shapes)):
                _add_input(builder, blob, layer.name, shape, current, origins, input_ops, position)
            continue
        converter = CONVERTERS.get(layer.type)
        if converter is None:
            raise CaffeLayerError(f"layer {layer.name} has type {layer.type}, which dump-caffe does not run")
        missing = [blob for blob in layer.bottom if blob not in current]
        if missing:
            raise CaffeLayerError(f"layer {layer.name} ({layer.type}): bottom {missing[0]} is no earlier layer's top")
        inputs = [current[blob] for blob in layer.bottom]
        outputs = [_new_tensor(blob, layer.name, current, builder) for blob in layer.top]
        context = LayerContext(builder, layer, net.weights.get(layer.name, []), inputs, [builder.shapes[t] for t in inputs], outputs)
        try:
            converter(context)
        except CaffeLayerError:
            raise
        except (ValueError, IndexError) as error:  # weights that do not fit the layer's shapes (numpy's reshape, indexing)
            raise CaffeLayerError(f"layer {layer.name} ({layer.type}): {error}") from None
        for position, (blob, tensor) in enumerate(zip(layer.top, outputs)):
            if tensor != blob:
                in_place.append((layer.name, blob))
            current[blob] = tensor
            origins[tensor] = TensorOrigin(layer.name, position)
    read = {name for node in builder.nodes for name in node.input}
    finals = [t for t in current.values() if t not in read and t not in input_ops] or list(current.values())[-1:]
    model = builder.model
    graph = model.graph
    graph.name = net.name or "caffe"
    graph.node.extend(builder.nodes)
    graph.input.extend(helper.make_tensor_value_info(t, TensorProto.FLOAT, builder.shapes[t]) for t in input_ops)
    graph.output.extend(helper.make_tensor_value_info(t, TensorProto.FLOAT, builder.shapes[t]) for t in finals)
    model.ir_version = 8
    model.producer_name = "opdiff dump-caffe"
    model.opset_import.append(helper.make_opsetid("", OPSET))
    return ConvertedNet(model, origins, input_ops, builder.layer_nodes, layer_types, in_place)


def _new_tensor(blob: str, layer: str, current: Mapping[str, str], builder: GraphBuilder) -> str:
    """The tensor a layer writes `blob` into: the blob's own name the first time, ``blob@layer`` after."""
    wanted = blob if blob not in current and blob not in builder.shapes else f"{blob}@{layer}"
    while wanted in builder.shapes:
        wanted += "_"
    return wanted


def _input_layer_shapes(layer: Any, overrides: Mapping[str, Shape]) -> List[Tuple[str, Shape]]:
    """(blob, shape) of each top of an Input or Data layer: --input-shape first, else the layer's
    input_param shapes (one per top, or one for all); Data layers' extra tops (labels) are dropped."""
    tops = list(layer.top) if layer.type == "Input" else list(layer.top[:1])
    declared = [tuple(int(d) for d in s.dim) for s in layer.input_param.shape] if layer.type == "Input" else []
    result = []
    for position, blob in enumerate(tops):
        shape: Optional[Shape] = overrides.get(blob)
        if shape is None and declared:
            shape = declared[position] if len(declared) > 1 else declared[0]
        if shape is None:
            raise CaffeLayerError(f"layer {layer.name} ({layer.type}): no shape for input {blob}: give --input-shape {blob}:N,C,H,W")
        result.append((blob, shape))
    return result


def _add_input(builder: GraphBuilder, blob: str, op: str, shape: Optional[Shape], current: Dict[str, str],
               origins: Dict[str, TensorOrigin], input_ops: Dict[str, str], position: int = 0) -> None:
    if shape is None:
        raise CaffeLayerError(f"input {blob}: no shape in the prototxt: give --input-shape {blob}:N,C,H,W")
    if any(d < 1 for d in shape):
        raise CaffeLayerError(f"input {blob}: shape {list(shape)} has a dim below 1")
    builder.shapes[blob] = tuple(shape)
    current[blob] = blob
    origins[blob] = TensorOrigin(op, position)
    input_ops[blob] = op

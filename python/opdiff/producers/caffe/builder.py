"""The ONNX graph a Caffe net becomes, built layer by layer: nodes, weights, and the shape of every
tensor (Caffe's shapes are static once the inputs' are known, and some layers need them: Pooling's
output size, Flatten, Reshape, Crop).

A converter (layers_*.py) gets a :class:`LayerContext` and emits the nodes of one layer; the last
of them writes the layer's tops under the names the context gives (``outputs``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

Shape = Tuple[int, ...]
_FLOAT, _INT64 = 1, 7  # onnx.TensorProto.FLOAT and INT64


class CaffeLayerError(ValueError):
    """A layer that cannot be converted (unknown type, bad parameters or weights): exit 2."""


@dataclass
class GraphBuilder:
    """The nodes and initializers built so far, the shape of every tensor, and the nodes of each layer."""

    model: Any = None  # onnx.ModelProto: the weights go straight into its graph (one copy of them)
    nodes: List[Any] = field(default_factory=list)  # onnx.NodeProto
    shapes: Dict[str, Shape] = field(default_factory=dict)
    layer_nodes: Dict[str, List[str]] = field(default_factory=dict)
    _names: Dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.model is None:
            import onnx

            self.model = onnx.ModelProto()

    def fresh(self, stem: str) -> str:
        """A name no tensor or node of the graph has yet, starting with `stem`."""
        count = self._names.get(stem, 0)
        self._names[stem] = count + 1
        return stem if count == 0 else f"{stem}_{count}"

    def constant(self, stem: str, array: np.ndarray) -> str:
        """An initializer holding `array` (float32, or int64 for integers); returns its name."""
        array = np.ascontiguousarray(array, dtype=np.int64 if array.dtype.kind in "iu" else np.float32)
        name = self.fresh(stem)
        tensor = self.model.graph.initializer.add()
        tensor.name = name
        tensor.data_type = _INT64 if array.dtype == np.int64 else _FLOAT
        tensor.dims.extend(array.shape)
        tensor.raw_data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        self.shapes[name] = tuple(int(d) for d in array.shape)
        return name


@dataclass
class LayerContext:
    """One layer being converted: its parameters, weights, input tensors and their shapes, and the
    tensor names its tops must be written under."""

    builder: GraphBuilder
    layer: Any  # LayerParameter
    weights: List[np.ndarray]
    inputs: List[str]
    input_shapes: List[Shape]
    outputs: List[str]
    _count: int = 0

    @property
    def name(self) -> str:
        return str(self.layer.name)

    def weight(self, index: int, what: str) -> np.ndarray:
        """Blob `index` of the layer (float32); CaffeLayerError naming it when the caffemodel lacks it."""
        if index >= len(self.weights):
            raise CaffeLayerError(f"layer {self.name} ({self.layer.type}): no {what} blob (blob {index}) in the caffemodel")
        return self.weights[index].astype(np.float32, copy=False)

    def constant(self, what: str, array: np.ndarray) -> str:
        return self.builder.constant(f"{self.name}/{what}", array)

    def node(self, op_type: str, inputs: Sequence[str], shape: Shape, **attributes: Any) -> str:
        """An intermediate node of the layer writing one new tensor of `shape`; returns the tensor."""
        tensor = self.builder.fresh(f"{self.name}/{op_type}")
        self.emit(op_type, inputs, [tensor], [shape], self.builder.fresh(f"{self.name}/{op_type}"), attributes)
        return tensor

    def final(self, op_type: str, inputs: Sequence[str], shapes: Sequence[Shape], **attributes: Any) -> None:
        """The node writing the layer's tops (all of them), named after the layer."""
        self.emit(op_type, inputs, self.outputs, shapes, self.builder.fresh(self.name), attributes)

    def final_at(self, index: int, op_type: str, inputs: Sequence[str], shape: Shape, **attributes: Any) -> None:
        """The node writing top `index` alone (layers whose tops come from separate nodes)."""
        name = self.builder.fresh(self.name if index == 0 else f"{self.name}:{index}")
        self.emit(op_type, inputs, [self.outputs[index]], [shape], name, attributes)

    def emit(self, op_type: str, inputs: Sequence[str], outputs: Sequence[str], shapes: Sequence[Shape], name: str,
              attributes: Dict[str, Any]) -> None:
        from onnx import helper

        if len(shapes) != len(outputs):
            raise CaffeLayerError(f"layer {self.name} ({self.layer.type}): {len(outputs)} tops, {len(shapes)} computed")
        self.builder.nodes.append(helper.make_node(op_type, list(inputs), list(outputs), name=name, **attributes))
        self.builder.layer_nodes.setdefault(self.name, []).append(name)
        for tensor, shape in zip(outputs, shapes):
            self.builder.shapes[tensor] = tuple(int(d) for d in shape)

    def fail(self, why: str) -> CaffeLayerError:
        return CaffeLayerError(f"layer {self.name} ({self.layer.type}): {why}")


def canonical_axis(axis: int, rank: int, context: LayerContext) -> int:
    """A Caffe axis (negative from the end) as 0..rank-1; CaffeLayerError when out of range."""
    if not -rank <= axis < rank:
        raise context.fail(f"axis {axis} out of range for a {rank}-D input")
    return axis % rank

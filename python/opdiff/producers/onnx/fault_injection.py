"""A fault in one op of a device model: a share of its weight's output channels scaled, so that the
comparison has a known culprit (a plain overall scale would leave cosine similarity untouched)."""

from __future__ import annotations

from typing import Tuple

from opdiff.producers.onnx.support import OnnxModel


def parse_fault(text: str) -> Tuple[str, float]:
    """``"NODE=SCALE"`` (or ``"NODE"``, scale 1.5) as (node, scale).

    >>> parse_fault("conv1=2"), parse_fault("conv1")
    (('conv1', 2.0), ('conv1', 1.5))
    """
    node, sep, scale = text.rpartition("=")
    if not sep:
        return text, 1.5
    try:
        return node, float(scale)
    except ValueError:
        raise ValueError(f"--fault {text!r} is not NODE=SCALE") from None


def scale_weights(model: OnnxModel, node_name: str, scale: float, share: float = 0.25) -> OnnxModel:
    """A copy of `model` whose node `node_name` has the first `share` of its weight's output channels
    (input 1, axis 0: Conv filters, Gemm/MatMul rows) multiplied by `scale`; ValueError when the node
    is missing or its input 1 is not an initializer.

    >>> import numpy as np
    >>> from onnx import helper, TensorProto, numpy_helper
    >>> w = numpy_helper.from_array(np.ones((4, 2), np.float32), "w")
    >>> g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "g",
    ...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])], [w])
    >>> numpy_helper.to_array(scale_weights(helper.make_model(g), "mm", 3.0).graph.initializer[0]).tolist()
    [[3.0, 3.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
    """
    import onnx
    from onnx import numpy_helper

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    node = next((n for n in copy.graph.node if n.name == node_name), None)
    if node is None:
        raise ValueError(f"--fault: no node {node_name!r} (names are those of the prepared model, see manifest notes)")
    initializer = next((i for i in copy.graph.initializer if len(node.input) > 1 and i.name == node.input[1]), None)
    if initializer is None:
        raise ValueError(f"--fault: node {node_name!r} has no weight initializer as input 1")
    weight = numpy_helper.to_array(initializer).copy()
    rows = max(1, int(weight.shape[0] * share))
    weight[:rows] = weight[:rows] * weight.dtype.type(scale)
    initializer.CopyFrom(numpy_helper.from_array(weight, initializer.name))
    return copy

"""A small convolutional network named the way ``torch.onnx.export`` names things, built with
onnx.helper (no PyTorch, no download): the quantized scenario's test model.

The names are what broke the quant filter on real PyTorch models (LaneNet): weights are dotted
module paths (``encoder.blocks.0.conv1.weight``), so ONNX Runtime's quantizer writes the int8
initializer ``encoder.blocks.0.conv1.weight_quantized`` and a DequantizeLinear on it; nodes are
slashed module paths (``/encoder/blocks.0/conv1/Conv``) and tensors ``{node}_output_0``.

Structure: a Conv + PRelu stem, `blocks` residual blocks (Conv, PRelu, Conv, Add of the shortcut,
PRelu), a MaxPool after every second block, and a 1x1 Conv head, with He-normal weights.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List

import numpy as np

from opdiff.producers.onnx.support import OnnxModel, OnnxNode, OnnxTensor

OPSET = 13
INPUT = "input"


@dataclass
class _Builder:
    rng: np.random.Generator
    nodes: List[OnnxNode] = field(default_factory=list)
    initializers: List[OnnxTensor] = field(default_factory=list)

    def weight(self, name: str, array: np.ndarray) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(array.astype(np.float32), name))
        return name

    # Any: onnx attribute values (ints, floats, lists, tensors), as helper.make_node takes them.
    def node(self, op_type: str, path: str, inputs: List[str], **attributes: Any) -> str:
        from onnx import helper

        name = f"{path}/{op_type}"
        output = f"{name}_output_0"
        self.nodes.append(helper.make_node(op_type, inputs, [output], name=name, **attributes))
        return output

    def conv(self, module: str, x: str, c_in: int, c_out: int, kernel: int) -> str:
        fan_in = c_in * kernel * kernel
        w = self.weight(f"{module}.weight", self.rng.standard_normal((c_out, c_in, kernel, kernel)) * np.sqrt(2.0 / fan_in))
        b = self.weight(f"{module}.bias", self.rng.standard_normal(c_out) * 0.01)
        pad = kernel // 2
        return self.node("Conv", _path(module), [x, w, b], kernel_shape=[kernel, kernel], pads=[pad] * 4)

    def prelu(self, module: str, x: str, channels: int) -> str:
        slope = self.weight(f"{module}.weight", 0.25 + 0.05 * self.rng.standard_normal((channels, 1, 1)))
        return self.node("PRelu", _path(module), [x, slope])


def _path(module: str) -> str:
    """The node path PyTorch gives a module: ``encoder.blocks.0.act`` -> ``/encoder/blocks.0/act``
    (a Sequential's index stays joined to its container's name)."""
    parts: List[str] = []
    for part in module.split("."):
        if part.isdigit() and parts:
            parts[-1] += "." + part
        else:
            parts.append(part)
    return "/" + "/".join(parts)


def torch_style_model(blocks: int = 4, channels: int = 16, size: int = 32, seed: int = 0) -> OnnxModel:
    """The network (a ModelProto, opset 13, IR 7) with seeded weights; input ``input`` [1, 3, size, size].

    >>> model = torch_style_model(blocks=2)
    >>> model.graph.node[0].name, model.graph.initializer[0].name
    ('/stem/conv/Conv', 'stem.conv.weight')
    >>> sorted({n.op_type for n in model.graph.node})
    ['Add', 'Conv', 'MaxPool', 'PRelu']
    """
    from onnx import TensorProto, helper

    build = _Builder(np.random.default_rng(seed))
    x = build.prelu("stem.act", build.conv("stem.conv", INPUT, 3, channels, 3), channels)
    for k in range(blocks):
        module = f"encoder.blocks.{k}"
        y = build.prelu(f"{module}.act1", build.conv(f"{module}.conv1", x, channels, channels, 3), channels)
        y = build.conv(f"{module}.conv2", y, channels, channels, 3)
        x = build.prelu(f"{module}.act2", build.node("Add", _path(module), [y, x]), channels)
        if k % 2 == 1:
            x = build.node("MaxPool", _path(f"{module}.pool"), [x], kernel_shape=[2, 2], strides=[2, 2])
    head = build.conv("head.conv", x, channels, 4, 1)
    graph = helper.make_graph(
        build.nodes, "torch_style",
        [helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info(head, TensorProto.FLOAT, None)],
        build.initializers,
    )
    opsets = [helper.make_opsetid("", OPSET)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=helper.find_min_ir_version_for(opsets),
                             producer_name="pytorch-style (opdiff)")

"""Element-wise layers: ReLU (negative_slope), PReLU, Sigmoid, TanH, ELU, AbsVal, Power, BNLL, and
Dropout (the identity at inference)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from opdiff.producers.caffe.builder import LayerContext


def relu(context: LayerContext) -> None:
    slope = float(context.layer.relu_param.negative_slope)
    if slope:
        context.final("LeakyRelu", context.inputs[:1], context.input_shapes[:1], alpha=slope)
    else:
        context.final("Relu", context.inputs[:1], context.input_shapes[:1])


def prelu(context: LayerContext) -> None:
    """y = max(0, x) + a min(0, x), ``a`` one slope per channel (axis 1), or one for all."""
    shape = context.input_shapes[0]
    slope = context.weight(0, "slope").reshape(-1)
    if context.layer.prelu_param.channel_shared or slope.size == 1:
        slope = slope[:1]
    else:
        if len(shape) < 2 or slope.size != shape[1]:
            raise context.fail(f"{slope.size} slopes for input {list(shape)}")
        slope = slope.reshape(shape[1], *([1] * (len(shape) - 2)))
    context.final("PRelu", [context.inputs[0], context.constant("slope", slope)], [shape])


def elu(context: LayerContext) -> None:
    context.final("Elu", context.inputs[:1], context.input_shapes[:1], alpha=float(context.layer.elu_param.alpha))


def power(context: LayerContext) -> None:
    """y = (shift + scale x) ^ power (Caffe writes 1 everywhere for power 0)."""
    param = context.layer.power_param
    shape = context.input_shapes[0]
    steps = []
    if param.power == 0:
        steps.append(("Mul", 0.0))
        steps.append(("Add", 1.0))
    else:
        if param.scale != 1:
            steps.append(("Mul", float(param.scale)))
        if param.shift != 0:
            steps.append(("Add", float(param.shift)))
        if param.power != 1:
            steps.append(("Pow", float(param.power)))
    if not steps:
        context.final("Identity", context.inputs[:1], [shape])
        return
    tensor = context.inputs[0]
    for position, (op, value) in enumerate(steps):
        operand = context.constant(op.lower(), np.array(value, np.float32))
        if position == len(steps) - 1:
            context.final(op, [tensor, operand], [shape])
        else:
            tensor = context.node(op, [tensor, operand], shape)


def simple(op_type: str) -> Callable[[LayerContext], None]:
    """A converter of a layer that is one ONNX op of the same input and output shape."""

    def convert(context: LayerContext) -> None:
        context.final(op_type, context.inputs[:1], context.input_shapes[:1])

    return convert

"""Normalising and affine layers: BatchNorm, Scale, Bias, LRN and the SSD fork's Normalize."""

from __future__ import annotations

from typing import Tuple

import numpy as np

from opdiff.producers.caffe.builder import LayerContext, Shape, canonical_axis


def batch_norm(context: LayerContext) -> None:
    """(x - mean) / sqrt(var + eps) per channel. With use_global_stats (the default at inference)
    mean and var are the stored blobs divided by the scale-factor blob (blob 2; a factor of 0 gives
    0); without it, the batch's own statistics over every axis but the channels (biased variance)."""
    param = context.layer.batch_norm_param
    shape = context.input_shapes[0]
    eps = float(param.eps)
    if param.HasField("use_global_stats") and not param.use_global_stats:
        _batch_statistics(context, shape, eps)
        return
    factor_blob = context.weight(2, "scale factor").reshape(-1)
    factor = 0.0 if factor_blob[0] == 0 else 1.0 / float(factor_blob[0])
    mean = context.weight(0, "mean").reshape(-1) * np.float32(factor)
    variance = context.weight(1, "variance").reshape(-1) * np.float32(factor)
    channels = mean.size
    inputs = [context.inputs[0], context.constant("scale", np.ones(channels, np.float32)),
              context.constant("bias", np.zeros(channels, np.float32)), context.constant("mean", mean),
              context.constant("variance", variance)]
    context.final("BatchNormalization", inputs, [shape], epsilon=eps)


def _batch_statistics(context: LayerContext, shape: Shape, eps: float) -> None:
    axes = [a for a in range(len(shape)) if a != 1]
    stats_shape = tuple(1 if a != 1 else d for a, d in enumerate(shape))
    x = context.inputs[0]
    mean = context.node("ReduceMean", [x], stats_shape, axes=axes, keepdims=1)
    centred = context.node("Sub", [x, mean], shape)
    square = context.node("Mul", [centred, centred], shape)
    variance = context.node("ReduceMean", [square], stats_shape, axes=axes, keepdims=1)
    shifted = context.node("Add", [variance, context.constant("eps", np.array(eps, np.float32))], stats_shape)
    deviation = context.node("Sqrt", [shifted], stats_shape)
    context.final("Div", [centred, deviation], [shape])


def _broadcast_shape(shape: Shape, axis: int, count: int) -> Tuple[int, ...]:
    """The shape a Scale or Bias operand covering axes [axis, axis + count) of `shape` takes to
    broadcast over it (numpy rules: trailing ones)."""
    return (*shape[axis:axis + count], *([1] * (len(shape) - axis - count)))


def scale(context: LayerContext) -> None:
    """y = x * s (+ b): s a learned blob (one bottom) or the second bottom, covering num_axes axes
    of x from axis; b (bias_term) the next blob."""
    param = context.layer.scale_param
    _affine(context, "Mul", int(param.axis), int(param.num_axes), bias=bool(param.bias_term))


def bias(context: LayerContext) -> None:
    param = context.layer.bias_param
    _affine(context, "Add", int(param.axis), int(param.num_axes), bias=False)


def _affine(context: LayerContext, op: str, axis: int, num_axes: int, *, bias: bool) -> None:
    shape = context.input_shapes[0]
    axis = canonical_axis(axis, len(shape), context) if shape else 0
    blob = 0
    if len(context.inputs) > 1:
        count = len(context.input_shapes[1])
        target = _broadcast_shape(shape, axis, count)
        operand = context.node("Reshape", [context.inputs[1], context.constant("shape", np.array(target, np.int64))], target)
    else:
        values = context.weight(0, "scale" if op == "Mul" else "bias")
        count = len(shape) - axis if num_axes == -1 else num_axes
        if values.size == 1 and count == 0:
            operand = context.constant("value", values.reshape(()))
        else:
            operand = context.constant("value", values.reshape(_broadcast_shape(shape, axis, count)))
        blob = 1
    if not bias:
        context.final(op, [context.inputs[0], operand], [shape])
        return
    product = context.node(op, [context.inputs[0], operand], shape)
    offset = context.weight(blob, "bias").reshape(_broadcast_shape(shape, axis, count))
    context.final("Add", [product, context.constant("bias", offset)], [shape])


def lrn(context: LayerContext) -> None:
    """ACROSS_CHANNELS: x (k + alpha/n sum of x^2 over n neighbouring channels)^-beta (ONNX's LRN).
    WITHIN_CHANNEL: x (1 + alpha/n^2 sum of x^2 over an n x n neighbourhood, zero-padded)^-beta."""
    param = context.layer.lrn_param
    shape = context.input_shapes[0]
    size = int(param.local_size)
    if size % 2 == 0:
        raise context.fail(f"local_size {size} (Caffe takes an odd size)")
    if param.norm_region == 0:
        context.final("LRN", context.inputs[:1], [shape], size=size, alpha=float(param.alpha), beta=float(param.beta),
                      bias=float(param.k))
        return
    x = context.inputs[0]
    square = context.node("Mul", [x, x], shape)
    half = (size - 1) // 2
    mean = context.node("AveragePool", [square], shape, kernel_shape=[size, size], pads=[half] * 4, count_include_pad=1)
    scaled = context.node("Mul", [mean, context.constant("alpha", np.array(param.alpha, np.float32))], shape)
    shifted = context.node("Add", [scaled, context.constant("one", np.array(1.0, np.float32))], shape)
    factor = context.node("Pow", [shifted, context.constant("beta", np.array(-param.beta, np.float32))], shape)
    context.final("Mul", [x, factor], [shape])


def normalize(context: LayerContext) -> None:
    """SSD's Normalize: x / sqrt(sum x^2 + eps), the sum over C, H, W (across_spatial) or over C at
    each position, times the scale blob (one value, or one per channel)."""
    param = context.layer.norm_param
    shape = context.input_shapes[0]
    x = context.inputs[0]
    axes = list(range(1, len(shape))) if param.across_spatial else [1]
    reduced = tuple(1 if a in axes else d for a, d in enumerate(shape))
    total = context.node("ReduceSumSquare", [x], reduced, axes=axes, keepdims=1)
    shifted = context.node("Add", [total, context.constant("eps", np.array(param.eps, np.float32))], reduced)
    norm = context.node("Sqrt", [shifted], reduced)
    unit = context.node("Div", [x, norm], shape)
    factors = context.weight(0, "scale").reshape(-1)
    if param.channel_shared or factors.size == 1:
        operand = context.constant("scale", factors[:1])
    else:
        operand = context.constant("scale", factors.reshape(shape[1], *([1] * (len(shape) - 2))))
    context.final("Mul", [unit, operand], [shape])

"""Convolution, Deconvolution and InnerProduct: the layers with a weight matrix.

Caffe's weights already have ONNX's layouts: Convolution (out, in/group, kernel...) as Conv,
Deconvolution (in, out/group, kernel...) as ConvTranspose, InnerProduct (out, in) as Gemm with
transB (``transpose: true`` stores it (in, out)).
"""

from __future__ import annotations

from typing import List

from opdiff.producers.caffe.builder import LayerContext, Shape, canonical_axis
from opdiff.producers.caffe.spatial import per_axis


def convolution(context: LayerContext) -> None:
    _convolution(context, transposed=False)


def deconvolution(context: LayerContext) -> None:
    _convolution(context, transposed=True)


def _convolution(context: LayerContext, *, transposed: bool) -> None:
    param = context.layer.convolution_param
    shape = context.input_shapes[0]
    if param.axis != 1:
        raise context.fail(f"convolution axis {param.axis} (only 1, the channels, is run)")
    axes = len(shape) - 2
    if axes < 1:
        raise context.fail(f"a {len(shape)}-D input (a convolution needs N, C and spatial axes)")
    kernel = per_axis(param, "kernel", axes, 0, layer=context.name)
    pad = per_axis(param, "pad", axes, 0, layer=context.name)
    stride = per_axis(param, "stride", axes, 1, layer=context.name)
    dilation = per_axis(param, "dilation", axes, 1, layer=context.name)
    group = int(param.group)
    weights = context.weight(0, "weight")
    if weights.ndim != axes + 2:
        weights = weights.reshape(_weight_shape(context, shape[1], kernel, transposed))
    inputs = [context.inputs[0], context.constant("weight", weights)]
    if param.bias_term:
        inputs.append(context.constant("bias", context.weight(1, "bias").reshape(-1)))
    extent = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    if transposed:
        spatial = [s * (n - 1) + e - 2 * p for n, e, p, s in zip(shape[2:], extent, pad, stride)]
        channels = weights.shape[1] * group
    else:
        spatial = [(n + 2 * p - e) // s + 1 for n, e, p, s in zip(shape[2:], extent, pad, stride)]
        channels = weights.shape[0]
    if min(spatial) < 1:
        raise context.fail(f"output size {spatial} from input {list(shape)}")
    context.final("ConvTranspose" if transposed else "Conv", inputs, [(shape[0], channels, *spatial)],
                  kernel_shape=list(kernel), pads=list(pad) * 2, strides=list(stride), dilations=list(dilation), group=group)


def _weight_shape(context: LayerContext, channels: int, kernel: tuple[int, ...], transposed: bool) -> List[int]:
    """The weight shape of a caffemodel whose blob has the legacy 4 counts only (num_output from the layer)."""
    param = context.layer.convolution_param
    group = int(param.group)
    if transposed:
        return [channels, int(param.num_output) // group, *kernel]
    return [int(param.num_output), channels // group, *kernel]


def inner_product(context: LayerContext) -> None:
    param = context.layer.inner_product_param
    shape = context.input_shapes[0]
    axis = canonical_axis(param.axis, len(shape), context)
    depth = 1
    for d in shape[axis:]:
        depth *= d
    weights = context.weight(0, "weight")
    outputs = int(param.num_output) or (weights.shape[-1] if param.transpose else weights.shape[0])
    weights = weights.reshape((depth, outputs) if param.transpose else (outputs, depth))
    rows = 1
    for d in shape[:axis]:
        rows *= d
    flat = context.inputs[0]
    if len(shape) != 2 or axis != 1:
        flat = context.node("Flatten", [flat], (rows, depth), axis=axis)
    inputs = [flat, context.constant("weight", weights)]
    if param.bias_term:
        inputs.append(context.constant("bias", context.weight(1, "bias").reshape(-1)))
    out_shape: Shape = (*shape[:axis], outputs)
    attributes = {"transB": 0 if param.transpose else 1}
    if axis == 1:
        context.final("Gemm", inputs, [out_shape], **attributes)
        return
    product = context.node("Gemm", inputs, (rows, outputs), **attributes)
    import numpy as np

    context.final("Reshape", [product, context.constant("shape", np.array(out_shape, np.int64))], [out_shape])

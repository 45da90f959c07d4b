"""Pooling, with Caffe's output size and its average's divisor.

Caffe (pooling_layer.cpp) sizes the output with ceil: ``pooled = ceil((H + 2p - k) / s) + 1``,
less one when p > 0 and the last window would start at or past ``H + p``. Window ``i`` covers
``[i s - p, i s - p + k)``:

* MAX takes the largest element of that window clipped to the input ``[0, H)``;
* AVE sums the elements inside ``[0, H)`` and divides by the window's size clipped to
  ``[-p, H + p)``: padding inside the pad counts, the part of a last window that hangs past the
  pad does not.

ONNX's pools size their output with floor and pad symmetrically, so each pool here gets
explicit end pads that make floor give Caffe's size (``(pooled - 1) s + k - H - p``, past the
declared pad where ceil added a window). MaxPool ignores padding, as Caffe does. AveragePool
(counting padding) divides every window by k_h k_w; a constant per output position,
``k_h k_w / clipped size``, turns that into Caffe's divisor where a window was clipped.
"""

from __future__ import annotations

from typing import List, Tuple

import numpy as np

from opdiff.producers.caffe.builder import LayerContext
from opdiff.producers.caffe.spatial import caffe_pooled_size, pooling_sizes

MAX, AVE = 0, 1


def pooling(context: LayerContext) -> None:
    param = context.layer.pooling_param
    shape = context.input_shapes[0]
    if len(shape) != 4:
        raise context.fail(f"a {len(shape)}-D input (Caffe pools N, C, H, W blobs)")
    if param.pool not in (MAX, AVE):
        raise context.fail("STOCHASTIC pooling (a training-time method) is not run")
    kernel, pad, stride = pooling_sizes(param, shape[2:], layer=context.name)
    if any(p >= k for p, k in zip(pad, kernel)):
        raise context.fail(f"pad {pad} not smaller than kernel {kernel}")
    if param.global_pooling:
        op = "GlobalMaxPool" if param.pool == MAX else "GlobalAveragePool"
        context.final(op, [context.inputs[0]], [(*shape[:2], 1, 1)])
        return
    pooled = [caffe_pooled_size(n, k, p, s) for n, k, p, s in zip(shape[2:], kernel, pad, stride)]
    source = context.inputs[0]
    ends: List[int] = []
    for axis, (n, k, p, s, m) in enumerate(zip(shape[2:], kernel, pad, stride, pooled)):
        end = (m - 1) * s + k - n - p
        if end >= k:  # kernel < stride, no pad: Caffe's last window starts past the input and reads nothing
            raise context.fail(f"the last window along axis {axis + 2} starts at {(m - 1) * s - p}, past the input's {n} "
                               "(kernel smaller than stride): Caffe fills it with -FLT_MAX (MAX) or a 0 over a non-positive divisor (AVE)")
        if end < 0:  # the windows stop short of the input's end: cut the rows no window reads
            source = _cut(context, source, axis + 2, n + end)
            end = 0
        ends.append(end)
    out_shape = (*shape[:2], *pooled)
    attributes = {"kernel_shape": list(kernel), "strides": list(stride), "pads": [*pad, *ends]}
    if param.pool == MAX:
        context.final("MaxPool", [source], [out_shape], **attributes)
        return
    factor = _average_factor(shape[2:], kernel, pad, stride, pooled)
    if np.all(factor == 1.0):
        context.final("AveragePool", [source], [out_shape], count_include_pad=1, **attributes)
        return
    mean = context.node("AveragePool", [source], out_shape, count_include_pad=1, **attributes)
    context.final("Mul", [mean, context.constant("divisor_factor", factor)], [out_shape])


def _cut(context: LayerContext, tensor: str, axis: int, size: int) -> str:
    shape = list(context.builder.shapes[tensor])
    shape[axis] = size
    starts, ends, axes = (context.constant(what, np.array([v], np.int64)) for what, v in (("starts", 0), ("ends", size), ("axes", axis)))
    return context.node("Slice", [tensor, starts, ends, axes], tuple(shape))


def _average_factor(size: Tuple[int, ...], kernel: Tuple[int, ...], pad: Tuple[int, ...], stride: Tuple[int, ...],
                    pooled: List[int]) -> np.ndarray:
    """k_h k_w / (Caffe's divisor) for every output position, shape (1, 1, PH, PW)."""
    per_axis = []
    for n, k, p, s, m in zip(size, kernel, pad, stride, pooled):
        starts = np.arange(m) * s - p
        per_axis.append(np.minimum(starts + k, n + p) - starts)
    divisor = np.outer(per_axis[0], per_axis[1]).astype(np.float64)
    return (kernel[0] * kernel[1] / divisor).astype(np.float32).reshape(1, 1, *pooled)

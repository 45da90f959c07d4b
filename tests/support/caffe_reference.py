"""A numpy forward pass of Caffe nets, written from Caffe's own layer definitions (its
src/caffe/layers/*.cpp, in float64, loops where Caffe loops), independent of dump-caffe's ONNX
conversion: what the tests check every layer's golden against."""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from tests.support.caffe_models import NetWriter

Tops = List[np.ndarray]


def forward(writer: NetWriter, feeds: Dict[str, np.ndarray]) -> Dict[Tuple[str, int], np.ndarray]:
    """(layer, top index) -> that top's value, every layer of the net, in-place ones included."""
    blobs = {name: value.astype(np.float64) for name, value in feeds.items()}
    results: Dict[Tuple[str, int], np.ndarray] = {}
    for layer in writer.net.layer:
        if layer.type == "Input":
            for k, top in enumerate(layer.top):
                results[(layer.name, k)] = blobs[top]
            continue
        weights = [b.astype(np.float64) for b in writer.blobs.get(layer.name, [])]
        tops = LAYERS[layer.type](layer, [blobs[b] for b in layer.bottom], weights)
        for k, (top, value) in enumerate(zip(layer.top, tops)):
            blobs[top] = value
            results[(layer.name, k)] = value
    return results


def _spatial(param: Any, name: str, default: int) -> Tuple[int, int]:
    if name != "dilation" and (param.HasField(f"{name}_h") or param.HasField(f"{name}_w")):
        return int(getattr(param, f"{name}_h")), int(getattr(param, f"{name}_w"))
    values = list(getattr(param, "kernel_size" if name == "kernel" else name)) or [default]
    return (int(values[0]), int(values[-1]))


def convolution(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    p = layer.convolution_param
    x, w = bottoms[0], weights[0]
    (kh, kw), (ph, pw), (sh, sw), (dh, dw) = (_spatial(p, n, d) for n, d in (("kernel", 0), ("pad", 0), ("stride", 1), ("dilation", 1)))
    n, c, height, width = x.shape
    group, out = int(p.group), w.shape[0]
    oh = (height + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    ow = (width + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    padded = np.zeros((n, c, height + 2 * ph, width + 2 * pw))
    padded[:, :, ph:ph + height, pw:pw + width] = x
    y = np.zeros((n, out, oh, ow))
    cin, cout = c // group, out // group
    for g in range(group):
        for i in range(kh):
            for j in range(kw):
                patch = padded[:, g * cin:(g + 1) * cin, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
                y[:, g * cout:(g + 1) * cout] += np.einsum("nchw,oc->nohw", patch, w[g * cout:(g + 1) * cout, :, i, j])
    if p.bias_term:
        y += weights[1].reshape(1, -1, 1, 1)
    return [y]


def deconvolution(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    """Each input value spreads over the output through the kernel (the convolution's backward)."""
    p = layer.convolution_param
    x, w = bottoms[0], weights[0]
    (kh, kw), (ph, pw), (sh, sw), (dh, dw) = (_spatial(p, n, d) for n, d in (("kernel", 0), ("pad", 0), ("stride", 1), ("dilation", 1)))
    n, c, height, width = x.shape
    group = int(p.group)
    cin, cout = c // group, w.shape[1]
    full_h, full_w = sh * (height - 1) + dh * (kh - 1) + 1, sw * (width - 1) + dw * (kw - 1) + 1
    y = np.zeros((n, cout * group, full_h, full_w))
    for g in range(group):
        for i in range(kh):
            for j in range(kw):
                part = np.einsum("nchw,co->nohw", x[:, g * cin:(g + 1) * cin], w[g * cin:(g + 1) * cin, :, i, j])
                y[:, g * cout:(g + 1) * cout, i * dh:i * dh + sh * (height - 1) + 1:sh, j * dw:j * dw + sw * (width - 1) + 1:sw] += part
    y = y[:, :, ph:full_h - ph, pw:full_w - pw]
    if p.bias_term:
        y = y + weights[1].reshape(1, -1, 1, 1)
    return [y]


def pooling(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    """pooling_layer.cpp: ceil-rounded output, last window dropped when it starts in the pad's end;
    MAX over the window clipped to the input, AVE summed there and divided by the window clipped to
    the padded input."""
    p = layer.pooling_param
    x = bottoms[0]
    n, c, height, width = x.shape
    if p.global_pooling:
        (kh, kw), (ph, pw), (sh, sw) = (height, width), (0, 0), (1, 1)
    else:
        kh = kw = int(p.kernel_size)
        ph = pw = int(p.pad)
        sh = sw = int(p.stride)
    oh = math.ceil((height + 2 * ph - kh) / sh) + 1
    ow = math.ceil((width + 2 * pw - kw) / sw) + 1
    if ph or pw:
        if (oh - 1) * sh >= height + ph:
            oh -= 1
        if (ow - 1) * sw >= width + pw:
            ow -= 1
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            hstart, wstart = i * sh - ph, j * sw - pw
            hend, wend = min(hstart + kh, height + ph), min(wstart + kw, width + pw)
            size = (hend - hstart) * (wend - wstart)
            hstart, wstart, hend, wend = max(hstart, 0), max(wstart, 0), min(hend, height), min(wend, width)
            window = x[:, :, hstart:hend, wstart:wend]
            y[:, :, i, j] = window.max(axis=(2, 3)) if p.pool == 0 else window.sum(axis=(2, 3)) / size
    return [y]


def inner_product(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    p = layer.inner_product_param
    x = bottoms[0]
    axis = p.axis % x.ndim
    flat = x.reshape(int(np.prod(x.shape[:axis])), -1)
    w = weights[0].reshape(flat.shape[1], -1) if p.transpose else weights[0].reshape(-1, flat.shape[1]).T
    y = flat @ w + (weights[1] if p.bias_term else 0)
    return [y.reshape(*x.shape[:axis], -1)]


def batch_norm(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    x = bottoms[0]
    p = layer.batch_norm_param
    if p.HasField("use_global_stats") and not p.use_global_stats:
        axes = tuple(a for a in range(x.ndim) if a != 1)
        mean = x.mean(axis=axes, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    else:
        factor = 0.0 if weights[2][0] == 0 else 1.0 / weights[2][0]
        shape = (1, -1) + (1,) * (x.ndim - 2)
        mean, var = (weights[0] * factor).reshape(shape), (weights[1] * factor).reshape(shape)
    return [(x - mean) / np.sqrt(var + p.eps)]


def _operand(x: np.ndarray, value: np.ndarray, axis: int) -> np.ndarray:
    axis %= x.ndim
    return value.reshape(*value.shape, *([1] * (x.ndim - axis - value.ndim)))


def scale(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    p = layer.scale_param
    x = bottoms[0]
    factor = bottoms[1] if len(bottoms) > 1 else weights[0]
    y = x * _operand(x, factor, p.axis)
    if p.bias_term:
        y = y + _operand(x, weights[0 if len(bottoms) > 1 else 1], p.axis)
    return [y]


def bias(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    x = bottoms[0]
    return [x + _operand(x, bottoms[1] if len(bottoms) > 1 else weights[0], layer.bias_param.axis)]


def lrn(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    p = layer.lrn_param
    x = bottoms[0]
    size, half = int(p.local_size), (int(p.local_size) - 1) // 2
    square = x ** 2
    total = np.zeros_like(x)
    if p.norm_region == 0:
        for c in range(x.shape[1]):
            total[:, c] = square[:, max(0, c - half):min(x.shape[1], c + size - half)].sum(axis=1)
        return [x * (p.k + p.alpha / size * total) ** -p.beta]
    padded = np.pad(square, ((0, 0), (0, 0), (half, half), (half, half)))
    for i in range(size):
        for j in range(size):
            total += padded[:, :, i:i + x.shape[2], j:j + x.shape[3]]
    return [x * (1 + p.alpha / size ** 2 * total) ** -p.beta]


def normalize(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    p = layer.norm_param
    x = bottoms[0]
    axes = tuple(range(1, x.ndim)) if p.across_spatial else (1,)
    y = x / np.sqrt((x ** 2).sum(axis=axes, keepdims=True) + p.eps)
    factor = weights[0].reshape(-1)
    return [y * (factor[0] if p.channel_shared else factor.reshape(1, -1, *([1] * (x.ndim - 2))))]


def eltwise(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    p = layer.eltwise_param
    if p.operation == 1:
        coeff = list(p.coeff) or [1.0] * len(bottoms)
        return [sum(k * b for k, b in zip(coeff, bottoms))]
    result = bottoms[0]
    for b in bottoms[1:]:
        result = result * b if p.operation == 0 else np.maximum(result, b)
    return [result]


def slice_layer(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    p = layer.slice_param
    return list(np.split(bottoms[0], list(p.slice_point) or len(layer.top), axis=p.axis))


def reshape(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    x = bottoms[0]
    dims = [x.shape[k] if d == 0 else d for k, d in enumerate(layer.reshape_param.shape.dim)]
    return [x.reshape(dims)]


def crop(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    p = layer.crop_param
    x, reference = bottoms
    offsets = list(p.offset)
    index = [slice(None)] * x.ndim
    for k, axis in enumerate(range(p.axis, x.ndim)):
        start = offsets[0] if len(offsets) == 1 else (offsets[k] if offsets else 0)
        index[axis] = slice(start, start + reference.shape[axis])
    return [x[tuple(index)]]


def softmax(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    x = bottoms[0]
    axis = layer.softmax_param.axis
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return [e / e.sum(axis=axis, keepdims=True)]


def argmax(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    """argmax_layer.cpp: the top_k (value, index) pairs by value, largest first."""
    p = layer.argmax_param
    x = bottoms[0]
    k = int(p.top_k)
    if p.HasField("axis"):
        order = np.flip(np.argsort(x, axis=p.axis, kind="stable"), axis=p.axis).take(range(k), axis=p.axis)
        return [np.take_along_axis(x, order, p.axis) if p.out_max_val else order.astype(np.float64)]
    flat = x.reshape(x.shape[0], -1)
    order = np.flip(np.argsort(flat, axis=1, kind="stable"), axis=1)[:, :k]
    parts = [order.astype(np.float64)] + ([np.take_along_axis(flat, order, 1)] if p.out_max_val else [])
    return [np.stack(parts, axis=1).reshape(x.shape[0], len(parts), k, *([1] * (x.ndim - 3)))]


def _flatten(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    x = bottoms[0]
    start, end = layer.flatten_param.axis % x.ndim, layer.flatten_param.end_axis % x.ndim
    return [x.reshape(*x.shape[:start], -1, *x.shape[end + 1:])]


def _elementwise(function: Callable[[Any, np.ndarray], np.ndarray]) -> Callable[[Any, Tops, Tops], Tops]:
    return lambda layer, bottoms, weights: [function(layer, bottoms[0])]


def _prelu(layer: Any, bottoms: Tops, weights: Tops) -> Tops:
    x = bottoms[0]
    slope = weights[0].reshape(-1)
    a = slope[0] if layer.prelu_param.channel_shared else slope.reshape(1, -1, *([1] * (x.ndim - 2)))
    return [np.maximum(x, 0) + a * np.minimum(x, 0)]


LAYERS: Dict[str, Callable[[Any, Tops, Tops], Tops]] = {
    "Convolution": convolution,
    "Deconvolution": deconvolution,
    "Pooling": pooling,
    "InnerProduct": inner_product,
    "BatchNorm": batch_norm,
    "Scale": scale,
    "Bias": bias,
    "LRN": lrn,
    "Normalize": normalize,
    "Eltwise": eltwise,
    "Slice": slice_layer,
    "Reshape": reshape,
    "Crop": crop,
    "Softmax": softmax,
    "ArgMax": argmax,
    "Flatten": _flatten,
    "PReLU": _prelu,
    "ReLU": _elementwise(lambda p, x: np.maximum(x, 0) + p.relu_param.negative_slope * np.minimum(x, 0)),
    "Sigmoid": _elementwise(lambda p, x: 1 / (1 + np.exp(-x))),
    "TanH": _elementwise(lambda p, x: np.tanh(x)),
    "ELU": _elementwise(lambda p, x: np.where(x > 0, x, p.elu_param.alpha * (np.exp(x) - 1))),
    "AbsVal": _elementwise(lambda p, x: np.abs(x)),
    "Power": _elementwise(lambda p, x: (p.power_param.shift + p.power_param.scale * x) ** p.power_param.power),
    "BNLL": _elementwise(lambda p, x: np.where(x > 0, x + np.log1p(np.exp(-np.abs(x))), np.log1p(np.exp(np.minimum(x, 0))))),
    "Dropout": _elementwise(lambda p, x: x),
    "Concat": lambda layer, bottoms, weights: [np.concatenate(bottoms, axis=layer.concat_param.axis)],
    "Split": lambda layer, bottoms, weights: [bottoms[0]] * len(layer.top),
    "Permute": lambda layer, bottoms, weights: [bottoms[0].transpose(list(layer.permute_param.order))],
}

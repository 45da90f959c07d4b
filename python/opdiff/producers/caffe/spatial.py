"""Kernel, pad, stride and dilation of Convolution, Deconvolution and Pooling, per spatial axis, as
Caffe reads them: the ``*_h``/``*_w`` fields when set, else the repeated field (one value for every
axis, or one per axis), else the default."""

from __future__ import annotations

from typing import Any, Sequence, Tuple

from opdiff.producers.caffe.builder import CaffeLayerError

Sizes = Tuple[int, ...]


def per_axis(param: Any, field: str, axes: int, default: int, *, layer: str) -> Sizes:
    """`field` of a ConvolutionParameter for `axes` spatial axes.

    >>> from opdiff.producers.caffe.proto import caffe_pb2
    >>> p = caffe_pb2.ConvolutionParameter(kernel_size=[3], pad_h=1, pad_w=2)
    >>> per_axis(p, "kernel", 2, 0, layer="c"), per_axis(p, "pad", 2, 0, layer="c"), per_axis(p, "stride", 2, 1, layer="c")
    ((3, 3), (1, 2), (1, 1))
    """
    if axes == 2 and field != "dilation" and _has_hw(param, field):
        return (int(getattr(param, f"{field}_h")), int(getattr(param, f"{field}_w")))
    values: Sequence[int] = list(getattr(param, "kernel_size" if field == "kernel" else field))
    if not values:
        if field == "kernel":
            raise CaffeLayerError(f"layer {layer}: no kernel size")
        return (default,) * axes
    if len(values) == 1:
        return (int(values[0]),) * axes
    if len(values) != axes:
        raise CaffeLayerError(f"layer {layer}: {len(values)} values of {field} for {axes} spatial axes")
    return tuple(int(v) for v in values)


def _has_hw(param: Any, field: str) -> bool:
    if field == "pad":  # pad_h and pad_w default to 0: set when either is
        return bool(param.HasField("pad_h") or param.HasField("pad_w"))
    return bool(param.HasField(f"{field}_h") or param.HasField(f"{field}_w"))


def pooling_sizes(param: Any, height_width: Sizes, *, layer: str) -> Tuple[Sizes, Sizes, Sizes]:
    """(kernel, pad, stride) of a PoolingParameter over an input of spatial size `height_width`
    (global pooling: the whole input, pad 0, stride 1)."""
    if param.global_pooling:
        return height_width, (0, 0), (1, 1)
    kernel = _pair(param, "kernel", "kernel_size", None, layer)
    pad = _pair(param, "pad", "pad", 0, layer)
    stride = _pair(param, "stride", "stride", 1, layer)
    return kernel, pad, stride


def _pair(param: Any, stem: str, single: str, default: Any, layer: str) -> Sizes:
    if param.HasField(f"{stem}_h") or param.HasField(f"{stem}_w"):
        return int(getattr(param, f"{stem}_h")), int(getattr(param, f"{stem}_w"))
    if param.HasField(single) or default is not None:
        value = int(getattr(param, single)) if param.HasField(single) else int(default)
        return value, value
    raise CaffeLayerError(f"layer {layer}: no kernel size")


def caffe_pooled_size(size: int, kernel: int, pad: int, stride: int) -> int:
    """Caffe's pooled output size along one axis: ceil((size + 2 pad - kernel) / stride) + 1, less
    one when pad > 0 and the last window would start at or past size + pad (it is clipped away).

    >>> caffe_pooled_size(7, 3, 1, 2), caffe_pooled_size(6, 3, 0, 2), caffe_pooled_size(5, 2, 1, 2)
    (4, 3, 3)
    """
    pooled = -(-(size + 2 * pad - kernel) // stride) + 1
    if pad > 0 and (pooled - 1) * stride >= size + pad:
        pooled -= 1
    return pooled

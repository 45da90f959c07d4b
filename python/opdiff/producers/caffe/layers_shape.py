"""Layers that combine, split or rearrange blobs: Eltwise, Concat, Slice, Split, Flatten, Reshape,
Permute, Crop, Softmax and ArgMax."""

from __future__ import annotations

import itertools
from typing import List

import numpy as np

from opdiff.producers.caffe.builder import LayerContext, Shape, canonical_axis

PROD, SUM, MAX = 0, 1, 2


def eltwise(context: LayerContext) -> None:
    """SUM (each bottom times its coeff, default 1), PROD or MAX of the bottoms."""
    param = context.layer.eltwise_param
    shape = context.input_shapes[0]
    if any(s != shape for s in context.input_shapes):
        raise context.fail(f"bottoms of different shapes {[list(s) for s in context.input_shapes]}")
    if param.operation == SUM:
        coeff = list(param.coeff)
        if coeff and len(coeff) != len(context.inputs):
            raise context.fail(f"{len(coeff)} coeff for {len(context.inputs)} bottoms")
        terms = []
        for k, tensor in enumerate(context.inputs):
            if coeff and coeff[k] != 1:
                tensor = context.node("Mul", [tensor, context.constant("coeff", np.array(coeff[k], np.float32))], shape)
            terms.append(tensor)
        context.final("Sum", terms, [shape])
    elif param.operation == PROD:
        product = context.inputs[0]
        for tensor in context.inputs[1:-1]:
            product = context.node("Mul", [product, tensor], shape)
        context.final("Mul", [product, context.inputs[-1]], [shape])
    else:
        context.final("Max", list(context.inputs), [shape])


def concat(context: LayerContext) -> None:
    param = context.layer.concat_param
    shape = context.input_shapes[0]
    axis = param.axis if param.HasField("axis") or not param.HasField("concat_dim") else param.concat_dim
    axis = canonical_axis(int(axis), len(shape), context)
    out = list(shape)
    out[axis] = sum(s[axis] for s in context.input_shapes)
    context.final("Concat", list(context.inputs), [tuple(out)], axis=axis)


def slice_layer(context: LayerContext) -> None:
    """Tops cut along axis at slice_point (none: equal parts), in top order."""
    param = context.layer.slice_param
    shape = context.input_shapes[0]
    axis = param.axis if param.HasField("axis") or not param.HasField("slice_dim") else param.slice_dim
    axis = canonical_axis(int(axis), len(shape), context)
    tops = len(context.outputs)
    points = [int(p) for p in param.slice_point]
    if points:
        if len(points) != tops - 1:
            raise context.fail(f"{len(points)} slice points for {tops} tops")
        bounds = [0, *points, shape[axis]]
    else:
        if shape[axis] % tops:
            raise context.fail(f"axis size {shape[axis]} does not split into {tops} equal tops")
        bounds = [shape[axis] // tops * k for k in range(tops + 1)]
    sizes = [b - a for a, b in itertools.pairwise(bounds)]
    if min(sizes) < 1:
        raise context.fail(f"slice points {points} for axis size {shape[axis]}")
    shapes = [tuple(size if a == axis else d for a, d in enumerate(shape)) for size in sizes]
    context.final("Split", [context.inputs[0], context.constant("split", np.array(sizes, np.int64))], shapes, axis=axis)


def split(context: LayerContext) -> None:
    """The bottom copied to every top: one Identity node per top."""
    for index in range(len(context.outputs)):
        context.final_at(index, "Identity", context.inputs[:1], context.input_shapes[0])


def flatten(context: LayerContext) -> None:
    param = context.layer.flatten_param
    shape = context.input_shapes[0]
    start = canonical_axis(int(param.axis), len(shape), context)
    end = canonical_axis(int(param.end_axis), len(shape), context)
    merged = int(np.prod(shape[start:end + 1], dtype=np.int64))
    _reshape_to(context, (*shape[:start], merged, *shape[end + 1:]))


def reshape(context: LayerContext) -> None:
    """Caffe's rule: dims of 0 copy the bottom's, one -1 takes what is left; axis and num_axes
    choose the span of the bottom's axes that the given dims replace."""
    param = context.layer.reshape_param
    shape = context.input_shapes[0]
    rank = len(shape)
    start = int(param.axis) if param.axis >= 0 else rank + 1 + int(param.axis)
    end = rank if param.num_axes == -1 else start + int(param.num_axes)
    if not 0 <= start <= end <= rank:
        raise context.fail(f"axis {param.axis} and num_axes {param.num_axes} for a {rank}-D input")
    dims: List[int] = []
    for k, dim in enumerate(int(d) for d in param.shape.dim):
        dims.append(shape[start + k] if dim == 0 else dim)
    out = [*shape[:start], *dims, *shape[end:]]
    total = int(np.prod(shape, dtype=np.int64))
    if out.count(-1) > 1:
        raise context.fail("more than one dim of -1")
    if -1 in out:
        known = int(np.prod([d for d in out if d != -1], dtype=np.int64))
        out[out.index(-1)] = total // known if known else 0
    if int(np.prod(out, dtype=np.int64)) != total:
        raise context.fail(f"shape {out} does not hold the {total} values of {list(shape)}")
    _reshape_to(context, tuple(out))


def _reshape_to(context: LayerContext, out: Shape) -> None:
    context.final("Reshape", [context.inputs[0], context.constant("shape", np.array(out, np.int64))], [out])


def permute(context: LayerContext) -> None:
    """SSD's Permute: the axes in `order`, then the axes it leaves out in their order."""
    shape = context.input_shapes[0]
    order = [int(a) for a in context.layer.permute_param.order]
    if len(set(order)) != len(order) or any(not 0 <= a < len(shape) for a in order):
        raise context.fail(f"order {order} for a {len(shape)}-D input")
    order += [a for a in range(len(shape)) if a not in order]
    context.final("Transpose", context.inputs[:1], [tuple(shape[a] for a in order)], perm=order)


def crop(context: LayerContext) -> None:
    """Bottom 0 cut to bottom 1's size on every axis from `axis` on, starting at the offsets (one for
    all axes, one per axis, or none: 0)."""
    param = context.layer.crop_param
    if len(context.inputs) != 2:
        raise context.fail(f"{len(context.inputs)} bottoms (Crop takes the blob and a reference)")
    shape, reference = context.input_shapes
    start = canonical_axis(int(param.axis), len(shape), context)
    offsets = [int(o) for o in param.offset]
    axes = list(range(start, len(shape)))
    if len(offsets) not in (0, 1, len(axes)):
        raise context.fail(f"{len(offsets)} offsets for {len(axes)} cropped axes")
    begin = [offsets[0] if len(offsets) == 1 else (offsets[k] if offsets else 0) for k in range(len(axes))]
    end = [b + reference[a] for b, a in zip(begin, axes)]
    if any(e > shape[a] for e, a in zip(end, axes)):
        raise context.fail(f"crop of {list(shape)} to {list(reference)} at offsets {begin} leaves the input")
    out = tuple(reference[a] if a >= start else d for a, d in enumerate(shape))
    inputs = [context.inputs[0], *(context.constant(what, np.array(values, np.int64)) for what, values in
                                   (("starts", begin), ("ends", end), ("axes", axes)))]
    context.final("Slice", inputs, [out])


def softmax(context: LayerContext) -> None:
    shape = context.input_shapes[0]
    axis = canonical_axis(int(context.layer.softmax_param.axis), len(shape), context)
    context.final("Softmax", context.inputs[:1], [shape], axis=axis)


def argmax(context: LayerContext) -> None:
    """The top_k indices (as floats, as Caffe writes them) along axis; without an axis, over each
    sample's flattened values, with out_max_val the (index, value) pairs as shape (N, 2, top_k)."""
    param = context.layer.argmax_param
    shape = context.input_shapes[0]
    k = int(param.top_k)
    source = context.inputs[0]
    if param.HasField("axis"):
        axis = canonical_axis(int(param.axis), len(shape), context)
    else:
        flat = int(np.prod(shape[1:], dtype=np.int64))
        source = context.node("Reshape", [source, context.constant("shape", np.array([shape[0], flat], np.int64))], (shape[0], flat))
        shape, axis = (shape[0], flat), 1
    if k > shape[axis]:
        raise context.fail(f"top_k {k} over an axis of {shape[axis]}")
    top_shape = tuple(k if a == axis else d for a, d in enumerate(shape))
    values = context.builder.fresh(f"{context.name}/TopK_values")
    indices = context.builder.fresh(f"{context.name}/TopK_indices")
    context.emit("TopK", [source, context.constant("k", np.array([k], np.int64))], [values, indices], [top_shape, top_shape],
                  context.builder.fresh(f"{context.name}/TopK"), {"axis": axis})
    as_float = context.node("Cast", [indices], top_shape, to=1)
    if param.HasField("axis"):
        context.final("Identity", [values if param.out_max_val else as_float], [top_shape])
        return
    # Caffe's top without an axis: (N, 1, top_k, 1...) as many axes as the bottom, 2 for (index, value) pairs
    rank = len(context.input_shapes[0])
    if rank < 3:
        raise context.fail(f"a {rank}-D input without an axis (Caffe's top then needs 3 axes)")
    pairs = 2 if param.out_max_val else 1
    caffe_shape = (shape[0], pairs, k, *([1] * (rank - 3)))
    shape_constant = context.constant("top_shape", np.array(caffe_shape, np.int64))
    if not param.out_max_val:
        context.final("Reshape", [as_float, shape_constant], [caffe_shape])
        return
    both = context.node("Concat", [as_float, values], (shape[0], 2 * k), axis=1)
    context.final("Reshape", [both, shape_constant], [caffe_shape])

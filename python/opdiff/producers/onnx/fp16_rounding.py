"""The graph ONNX Runtime runs for an fp16 model: every fp16 op computed in float32 between explicit
Casts, so that each op's output is rounded to fp16 before the next op reads it, as on a device.

ONNX Runtime's CPU provider has no fp16 kernel for most ops. For such an op it inserts a Cast to
float32 before and a Cast back to fp16 after (its InsertCastTransformer, which runs at every
optimisation level, ``ORT_DISABLE_ALL`` included, and which no session option turns off), then drops
the Cast pairs between two such ops as "precision free": a chain of them computes in float32 and
never rounds. An overflow (a MatMul past 65,504) or a cancellation (4096 + x - mean) then vanishes.

So the run graph does the casting itself. A node that reads fp16 reads a float32 copy made by a
Cast (one per tensor, shared by its readers), computes in float32, and writes a float32 tensor that
a Cast turns into the fp16 tensor of the original name. ONNX Runtime then sees no fp16 input on any
node but Casts, inserts nothing, and keeps the user's Casts: it drops an fp32 -> fp16 -> fp32 pair
only when it inserted the pair itself (``InsertedPrecisionFreeCast_`` names; checked on onnxruntime
1.17 and 1.32 by :func:`opdiff.producers.onnx.runner.ort_inserted_casts`).

An op computed this way reads fp16 values and writes an fp16 value, with float32 inside: what a
device's fp16 op does for element-wise ops (a single correctly rounded operation is the same either
way) and for matrix products (fp16 in, fp32 accumulation, fp16 out). Casts, nodes kept in float32,
nodes without fp16 inputs (Constant) and nodes with subgraphs are left as they are.
"""

from __future__ import annotations

from typing import AbstractSet, Dict, List

from opdiff.producers.onnx.support import OnnxModel, OnnxNode

UP_SUFFIX = "__up32"  # the float32 copy of an fp16 tensor that a rounded node reads
RAW_SUFFIX = "__raw32"  # a rounded node's float32 output, before its Cast to fp16


def rounding_run_model(model: OnnxModel, half: AbstractSet[str], leave: AbstractSet[str]) -> OnnxModel:
    """A copy of the fp16 `model` that ONNX Runtime computes op by op in float32, each output
    rounded to fp16 (see the module notes). `half` names its fp16 tensors; `leave` the nodes to run
    as they are (those kept in float32). Tensor names of `model` are kept, with the same values.

    >>> import numpy as np
    >>> from onnx import helper, TensorProto
    >>> g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "g",
    ...     [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [2])], [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [2])])
    >>> run = rounding_run_model(helper.make_model(g), {"x", "y"}, set())
    >>> [(n.op_type, list(n.input), list(n.output)) for n in run.graph.node]
    [('Cast', ['x'], ['x__up32']), ('Relu', ['x__up32'], ['y__raw32']), ('Cast', ['y__raw32'], ['y'])]
    """
    copy = type(model)()
    copy.CopyFrom(model)
    round_in_place(copy, half, leave)
    return copy


def round_in_place(model: OnnxModel, half: AbstractSet[str], leave: AbstractSet[str]) -> None:
    """:func:`rounding_run_model` on `model` itself: for the copy a session is built from, so that
    a large model's weights are not copied once more."""
    import onnx

    written: List[OnnxNode] = []
    up_copies: Dict[str, str] = {}
    for node in model.graph.node:
        if node.name in leave or not _rounds(node, half):
            kept = onnx.NodeProto()
            kept.CopyFrom(node)  # the graph's own node list is replaced below
            written.append(kept)
        else:
            written.extend(_rounded(node, half, up_copies))
    del model.graph.node[:]
    model.graph.node.extend(written)


def _rounds(node: OnnxNode, half: AbstractSet[str]) -> bool:
    """Whether `node` computes on fp16 values that ONNX Runtime might run unrounded: a non-Cast
    node reading fp16, without a subgraph whose types would change with its inputs."""
    if node.op_type == "Cast" or any(attribute.g.node or attribute.graphs for attribute in node.attribute):
        return False
    return any(tensor in half for tensor in node.input)


def _rounded(node: OnnxNode, half: AbstractSet[str], up_copies: Dict[str, str]) -> List[OnnxNode]:
    """`node` computing in float32: the Casts up of the fp16 inputs not cast up yet (recorded in
    `up_copies`), the node itself, and a Cast to fp16 of each fp16 output under its own name."""
    import onnx
    from onnx import TensorProto, helper

    written: List[OnnxNode] = []
    copy = onnx.NodeProto()
    copy.CopyFrom(node)
    for index, tensor in enumerate(node.input):
        if tensor not in half:
            continue
        if tensor not in up_copies:
            up_copies[tensor] = tensor + UP_SUFFIX
            written.append(helper.make_node("Cast", [tensor], [up_copies[tensor]], name=tensor + UP_SUFFIX, to=TensorProto.FLOAT))
        copy.input[index] = up_copies[tensor]
    downs: List[OnnxNode] = []
    for index, tensor in enumerate(node.output):
        if tensor in half:
            copy.output[index] = tensor + RAW_SUFFIX
            downs.append(helper.make_node("Cast", [copy.output[index]], [tensor], name=f"{node.name}{RAW_SUFFIX}{index}",
                                          to=TensorProto.FLOAT16))
    return written + [copy] + downs

"""Which ops of an ONNX model run in fp32 under ATC's mixed precision (``--mixlist``), as opdiff
models it: the ops whose type is on the black list, the ops kept (``--keep_dtype``), and the gray
ops that follow an fp32 op upstream.

The lists name Ascend IR types (:mod:`opdiff.conventions.mixlist`); an op's Ascend type comes from
the fusion rule where one is given, else it is taken to be its ONNX type (the two agree for most
element-wise ops: Relu, Add, Mul, Exp, Sigmoid, Tanh; not for Conv, which ATC names Conv2D).

A gray op "follows the precision of its upstream op" (ATC's words). opdiff reads that as: a gray op
runs fp16 when any op writing one of its float inputs runs fp16, else fp32 (an op that reads only
graph inputs and weights follows the fp32 inputs). Where upstream ops disagree, fp16 is the choice
that does not understate the device's error.
"""

from __future__ import annotations

from typing import AbstractSet, Dict, Mapping, Optional, Set

from opdiff.conventions.mixlist import MixList, MixLists
from opdiff.producers.onnx.support import OnnxModel


def fp32_under_mix(model: OnnxModel, lists: MixLists, types: Mapping[str, str], *, kept: AbstractSet[str] = frozenset(),
                   kept_types: AbstractSet[str] = frozenset(), ascend_types: Optional[Mapping[str, str]] = None) -> Set[str]:
    """The names of `model`'s nodes that run fp32 (see the module notes), the nodes `kept` and
    those of the ONNX types `kept_types` among them. `types` gives each tensor's element type
    (``"tensor(float)"``: as :func:`opdiff.producers.onnx.runner.tensor_types`); `ascend_types` maps
    a node name to its Ascend IR type (default: its ONNX type).

    >>> from onnx import helper
    >>> nodes = [helper.make_node("Exp", ["x"], ["a"], name="exp"), helper.make_node("Relu", ["a"], ["b"], name="relu"),
    ...          helper.make_node("MatMul", ["b", "w"], ["c"], name="mm"), helper.make_node("Relu", ["c"], ["d"], name="relu2")]
    >>> model = helper.make_model(helper.make_graph(nodes, "g", [], []))
    >>> lists = MixLists({"Exp": MixList.BLACK, "MatMul": MixList.WHITE})
    >>> types = dict.fromkeys("xabcdw", "tensor(float)")
    >>> sorted(fp32_under_mix(model, lists, types)), sorted(fp32_under_mix(model, lists, types, kept={"mm"}))
    (['exp', 'relu'], ['exp', 'mm', 'relu', 'relu2'])
    """
    ascend = ascend_types or {}
    writer_is_half: Dict[str, bool] = {}
    fp32: Set[str] = set()
    for node in model.graph.node:  # ONNX keeps nodes in topological order
        listed = lists.of(ascend.get(node.name, node.op_type))
        if node.name in kept or node.op_type in kept_types or listed is MixList.BLACK:
            half = False
        elif listed is MixList.WHITE:
            half = True
        else:
            half = any(writer_is_half.get(t, False) for t in node.input if types.get(t) == "tensor(float)")
        if not half:
            fp32.add(node.name)
        for tensor in node.output:
            if tensor:
                writer_is_half[tensor] = half
    return fp32

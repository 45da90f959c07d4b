"""The demo's NPU graph: conv+bn(+relu) chains fused into one op each, as ATC's fusion passes do,
and the fusion rule (atc JSON) that records which framework ops every NPU op replaced."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Tuple

import numpy as np

from opdiff.demo.network import Op
from opdiff.graph import FusionMap, OutputDesc
from opdiff.graph.grouping import build_fusion_map
from opdiff.graph.provenance import make_op


@dataclass(frozen=True)
class NpuOp:
    """One operator of the NPU graph and the framework ops it replaced (in order)."""

    name: str
    type: str
    members: Tuple[str, ...]
    inputs: Tuple[str, ...]  # framework op names feeding the first member

    @property
    def output(self) -> str:
        """The framework op whose output this NPU op produces."""
        return self.members[-1]


def fuse(ops: List[Op]) -> List[NpuOp]:
    """Fuse Conv2D -> BatchNorm [-> Relu] chains into single NPU ops."""
    fused: List[NpuOp] = []
    i = 0
    while i < len(ops):
        members = [ops[i]]
        if ops[i].type == "Conv2D":
            for kind in ("BatchNorm", "Relu"):
                follower = ops[i + len(members)] if i + len(members) < len(ops) else None
                if follower is None or follower.type != kind or follower.inputs != (members[-1].name,):
                    break
                members.append(follower)
        name = members[-1].name + "_fused" if len(members) > 1 else members[0].name
        fused.append(NpuOp(name, members[0].type, tuple(m.name for m in members), members[0].inputs))
        i += len(members)
    return fused


def fusion_rule(npu_ops: List[NpuOp], shapes: Dict[str, Tuple[int, ...]]) -> FusionMap:
    """The fusion map of the NPU graph (a Data op for the model input first)."""
    producer = {op.output: op.name for op in npu_ops}
    producer["input"] = "input"

    def desc(framework_op: str) -> OutputDesc:
        shape = shapes[framework_op]
        return OutputDesc(framework_op, 0, "NCHW" if len(shape) == 4 else "ND", tuple(shape), "DT_FLOAT16")

    ops = [make_op("input", "Data", id_=0, output_descs=[desc("input")])]
    for number, op in enumerate(npu_ops, start=1):
        ops.append(make_op(op.name, op.type, id_=number, inputs=[f"{producer[name]}:0" for name in op.inputs],
                           original_names=list(op.members), output_descs=[desc(op.output)]))
    return build_fusion_map("opdiff_demo", [("opdiff_demo_graph", ops)])


def layout_of(array: np.ndarray) -> str:
    """How the device stores a tensor: 5HD (NC1HWC0) for 4-D activations, ND otherwise."""
    return "NC1HWC0" if array.ndim == 4 else "ND"

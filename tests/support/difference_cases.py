"""Generated cases of the differences found on TensorFlow-converted models (docs/compare-differences.md),
written with the project's writers: groups of several NPU ops (one-to-multi with a Const member,
many-to-many with an inner node, in a quantized model) and tensors whose dump states another
logical shape or layout than the golden's (a TransData into FRACTAL_NZ that flattens, NHWC
origins, folded reshapes, a transposed golden, NCHW against an NHWC golden).

Each case knows the value each of its compared tensors must have: `expected` maps a TensorIndex to
the golden array and the decoded device array, so a test checks opdiff's metrics against the
golden's own values, and the cross-check names the rows where opdiff departs from the reference on
purpose (`deliberate`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from opdiff.conventions.dump_names import device_file_name, golden_file_name
from opdiff.dumps import Tensor, write_dump
from opdiff.graph.json_export import write_atc_json
from opdiff.graph.rule_builder import RuleOp, RuleOutput, fusion_rule

TS = 1700000000000000
BATCH = 4


@dataclass
class DifferenceCase:
    """The folders and rule of one case, what each compared tensor holds, and the rows where
    opdiff departs from the reference on purpose (TensorIndex -> why)."""

    my: Path
    golden: Path
    rule: Path
    expected: Dict[str, Tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)  # golden, device
    deliberate: Dict[str, str] = field(default_factory=dict)


@dataclass
class _Folders:
    root: Path
    rng: np.random.Generator
    ops: List[RuleOp] = field(default_factory=list)
    task: int = 0

    def __post_init__(self) -> None:
        (self.root / "npu").mkdir(parents=True, exist_ok=True)
        (self.root / "golden").mkdir(parents=True, exist_ok=True)

    def golden(self, name: str, value: np.ndarray, index: int = 0) -> np.ndarray:
        value = value.astype(np.float32)
        np.save(self.root / "golden" / golden_file_name(name, index, TS), value)
        return value

    def noisy(self, value: np.ndarray) -> np.ndarray:
        return (value * (1 + 1e-3 * self.rng.standard_normal(value.shape))).astype(np.float32)

    def add(self, op: RuleOp, inputs: Sequence[Tensor] = (), outputs: Sequence[Tensor] = (), dumped: bool = True) -> RuleOp:
        self.ops.append(op)
        if dumped:
            self.task += 1
            name = device_file_name(op.type, op.name, self.task, 1, TS + self.task)
            write_dump(self.root / "npu" / name, op.name, inputs=list(inputs), outputs=list(outputs))
        return op

    def finish(self, expected: Dict[str, Tuple[np.ndarray, np.ndarray]], deliberate: Dict[str, str]) -> DifferenceCase:
        path = self.root / "rule.json"
        write_atc_json(fusion_rule(self.ops), path)
        return DifferenceCase(self.root / "npu", self.root / "golden", path, expected, deliberate)


def group_case(root: Path, seed: int = 5) -> DifferenceCase:
    """Groups of several NPU ops in a quantized model (its op names carry `_dequant_layer`, and so
    do the golden's: both sides are quantized): a one-to-multi group whose Const member has no
    dump, one where no member has a dump, a many-to-many group with an inner node (a
    RequantHostCpuOp), one whose only other member has no dump, and one whose members the quant
    filter skips."""
    w = _Folders(root, np.random.default_rng(seed))
    x = w.golden("x", w.rng.standard_normal((4, 8)))
    w.add(RuleOp("x", "Data", 0, originals=["x"], outputs=[RuleOutput("x", 0, x.shape)]), dumped=False)
    x16 = Tensor(x, dtype="float16")
    expected: Dict[str, Tuple[np.ndarray, np.ndarray]] = {}

    gather = w.golden("Gather_1221", w.rng.standard_normal((4, 8)))
    w.add(RuleOp("PartitionedCall_Gather_1221_const_data_2", "Const", 1, [], ["Gather_1221"], [RuleOutput("Gather_1221", 0, [4])]),
          dumped=False)
    device = w.noisy(gather)
    w.add(RuleOp("PartitionedCall_Gather_1221_gatherv2_3", "GatherV2", 2, ["x:0"], ["Gather_1221"], [RuleOutput("Gather_1221", 0, gather.shape)]),
          [x16], [Tensor(device, dtype="float16")])
    expected["PartitionedCall_Gather_1221_gatherv2_3:output:0"] = (gather, device)

    w.golden("Gather_9", w.rng.standard_normal((4, 8)))
    w.add(RuleOp("PC_Gather_9_const", "Const", 3, [], ["Gather_9"], [RuleOutput("Gather_9", 0, [4])]), dumped=False)
    w.add(RuleOp("PC_Gather_9_gatherv2", "GatherV2", 4, ["x:0"], ["Gather_9"], [RuleOutput("Gather_9", 0, [4, 8])]), dumped=False)

    names = ["fc1000", "fc1000_dequant_layer"]
    fc = w.golden("fc1000_dequant_layer", w.rng.standard_normal((4, 8)))
    w.add(RuleOp("RequantHostCpuOp_107", "RequantHostCpuOp", 5, [], names, [RuleOutput("", 0, [8], dtype="DT_UINT64")], multiop=True),
          dumped=False)
    device = w.noisy(fc)
    w.add(RuleOp("fc1000_dequant_layer", "MatMulV2", 6, ["x:0", "RequantHostCpuOp_107:0"], names,
                 [RuleOutput("fc1000_dequant_layer", 0, fc.shape)], multiop=True), [x16], [Tensor(device, dtype="float16")])
    expected["fc1000_dequant_layer:output:0"] = (fc, device)

    names = ["fc2", "fc2_dequant_layer"]
    w.golden("fc2_dequant_layer", w.rng.standard_normal((4, 8)))
    w.add(RuleOp("RequantHostCpuOp_200", "RequantHostCpuOp", 7, [], names, [RuleOutput("", 0, [8], dtype="DT_UINT64")], multiop=True),
          dumped=False)
    w.add(RuleOp("fc2_dequant_layer", "MatMulV2", 8, ["x:0"], names, [RuleOutput("fc2_dequant_layer", 0, [4, 8])], multiop=True), dumped=False)

    # A group whose members all sit inside a quant/dequant pair: the quant filter skips them.
    int8 = Tensor(np.round(x * 20), dtype="int8")
    w.add(RuleOp("conv_quant_layer", "AscendQuant", 9, ["x:0"], ["conv_quant_layer"],
                 [RuleOutput("conv_quant_layer", 0, [4, 8], dtype="DT_INT8")]), [x16], [int8])
    expected["conv_quant_layer:input:0"] = (x, x)
    w.golden("conv", w.rng.standard_normal((4, 8)))
    w.add(RuleOp("conv_a", "Conv2D", 10, ["conv_quant_layer:0"], ["conv"], [RuleOutput("conv", 0, [4, 8], dtype="DT_INT8")]), [int8], [int8])
    w.add(RuleOp("conv_b", "Conv2D", 11, ["conv_quant_layer:0"], ["conv"], [RuleOutput("conv", 0, [4, 8], dtype="DT_INT8")]), dumped=False)
    return w.finish(expected, {})


def _through_trans_data(w: _Folders, name: str, desc: RuleOutput, stored: Tensor) -> str:
    """A framework op (its dump not kept) and the TransData after it, whose dump holds `stored`:
    the TransData's output is compared with the op's golden (its producer's, walked back)."""
    w.add(RuleOp(name, "Relu", len(w.ops), [], [name], [desc]), dumped=False)
    trans = f"{name}_trans"
    w.add(RuleOp(trans, "TransData", len(w.ops), [f"{name}:0"], None, [RuleOutput("", 0, desc.shape, desc.fmt)]), outputs=[stored])
    return f"{trans}:output:0"


def layout_case(root: Path, seed: int = 6) -> DifferenceCase:
    """Tensors decoded from their dump's own original shape and origin format, then compared with
    a golden of another shape by element count where the element order allows."""
    w = _Folders(root, np.random.default_rng(seed))
    expected: Dict[str, Tuple[np.ndarray, np.ndarray]] = {}
    deliberate: Dict[str, str] = {}

    # A TransData into FRACTAL_NZ that flattens: stored [128,1,16,16], original [1,2048], golden [1,2048,1,1].
    pooled = w.golden("pool/GlobalAveragePool", w.rng.standard_normal((1, 2048, 1, 1)))
    device = w.noisy(pooled.reshape(1, 2048))
    key = _through_trans_data(w, "pool/GlobalAveragePool", RuleOutput("pool/GlobalAveragePool", 0, [1, 2048, 1, 1], "NCHW"),
                              Tensor(device, layout="FRACTAL_NZ", dtype="float16"))
    expected[key] = (pooled, device)

    # NHWC origin: NC1HWC0 [B,2,7,7,16] of [B,7,7,32]; _datadump_origin_format says ND, origin_format NHWC.
    relu = w.golden("conv/Relu", w.rng.standard_normal((BATCH, 7, 7, 32)))
    device = w.noisy(relu)
    w.add(RuleOp("conv/Relu", "Conv2D", len(w.ops), [], ["conv/Relu"], [RuleOutput("conv/Relu", 0, relu.shape, "ND", ge_fmt="NHWC")]),
          outputs=[Tensor(device, layout="NC1HWC0", logical_format="NHWC", dtype="float16")])
    expected["conv/Relu:output:0"] = (relu, device)
    deliberate["conv/Relu:output:0"] = ("NHWC origin (origin_format NHWC, _datadump_origin_format ND): the reference compares the "
                                        "stored NC1HWC0 bytes in stored order; opdiff decodes them as NHWC")

    # NHWC origin the dump's own header records (original_op.format), the rule saying only ND.
    relu = w.golden("conv4/Relu", w.rng.standard_normal((BATCH, 7, 7, 32)))
    device = w.noisy(relu)
    w.add(RuleOp("conv4/Relu", "Conv2D", len(w.ops), [], ["conv4/Relu"], [RuleOutput("conv4/Relu", 0, relu.shape, "ND")]),
          outputs=[Tensor(device, layout="NC1HWC0", logical_format="NHWC", dtype="float16", origin_name="conv4/Relu",
                          origin_format="NHWC")])
    expected["conv4/Relu:output:0"] = (relu, device)
    deliberate["conv4/Relu:output:0"] = ("NHWC origin (in the dump's original_op, the rule saying ND): the reference compares "
                                         "the stored NC1HWC0 bytes in stored order; opdiff decodes them as NHWC")

    # Folded reshapes: NC1HWC0 of NHWC [B,28,28,1] against a golden [B,784]; FRACTAL_NZ of [B,1568] against [B,7,7,32].
    flat = w.golden("flatten/Reshape", w.rng.standard_normal((BATCH, 784)))
    device = w.noisy(flat.reshape(BATCH, 28, 28, 1))
    key = _through_trans_data(w, "flatten/Reshape", RuleOutput("flatten/Reshape", 0, [BATCH, 28, 28, 1], "NHWC"),
                              Tensor(device, layout="NC1HWC0", logical_format="NHWC", dtype="float16"))
    expected[key] = (flat, device)
    deliberate[key] = "folded reshape: the reference declines (shapes differ); opdiff compares by element count"
    pooled = w.golden("pool2/MaxPool", w.rng.standard_normal((BATCH, 7, 7, 32)))
    device = w.noisy(pooled.reshape(BATCH, 1568))
    key = _through_trans_data(w, "pool2/MaxPool", RuleOutput("pool2/MaxPool", 0, [BATCH, 7, 7, 32], "NHWC"),
                              Tensor(device, layout="FRACTAL_NZ", dtype="float16"))
    expected[key] = (pooled, device)
    deliberate[key] = "folded reshape: the reference declines (shapes differ); opdiff compares by element count"

    # A golden that is my tensor transposed: as many elements, another order; not compared.
    matmul = w.golden("mm/MatMul", w.rng.standard_normal((40, 24)))
    w.add(RuleOp("mm/MatMul", "MatMulV2", len(w.ops), [], ["mm/MatMul"], [RuleOutput("mm/MatMul", 0, matmul.shape)]),
          outputs=[Tensor(w.noisy(matmul.T.copy()), layout="FRACTAL_NZ", dtype="float16")])
    deliberate["mm/MatMul:output:0"] = "both decline: the reason is in opdiff's words (the element orders may differ)"

    # The rule says NCHW [1,24,8,8], the golden file holds NHWC [1,8,8,24]: laid out as NHWC (the reference flips too).
    conv = w.golden("conv3/Conv", w.rng.standard_normal((1, 8, 8, 24)))
    device = w.noisy(conv.transpose(0, 3, 1, 2).copy())
    w.add(RuleOp("conv3/Conv", "Conv2D", len(w.ops), [], ["conv3/Conv"], [RuleOutput("conv3/Conv", 0, [1, 24, 8, 8], "NCHW")]),
          outputs=[Tensor(device, layout="NC1HWC0", dtype="float16")])
    expected["conv3/Conv:output:0"] = (conv, device.transpose(0, 2, 3, 1))
    return w.finish(expected, deliberate)


def decoded(case: DifferenceCase, tensor_index: str) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """The golden and the device values of one compared tensor, both flat in the golden's order."""
    pair = case.expected.get(tensor_index)
    if pair is None:
        return None
    golden, device = pair
    return golden.reshape(-1), device.astype(np.float16).astype(np.float32).reshape(-1)


__all__ = ["DifferenceCase", "decoded", "group_case", "layout_case"]

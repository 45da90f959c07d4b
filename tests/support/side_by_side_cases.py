"""The cases of the CSV cross-check, written with opdiff's own writers: NPU vs golden through a
fusion rule (fused and split ops, NC1HWC0 / FRACTAL_NZ fp16 outputs, Cast and TransData, edge
values), NPU vs NPU by op name, and the two real atc JSON samples with matching dumps."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
from numpy.typing import NDArray

import opdiff
from opdiff.conventions.dump_names import device_file_name, golden_file_name
from opdiff.dumps import Tensor, write_dump
from opdiff.graph.json_export import write_atc_json
from opdiff.graph.rule_builder import RuleOp, RuleOutput, fusion_rule
from tests.support.difference_cases import group_case, layout_case
from tests.support.graph_dumps import write_graph_dumps

TS = 1700000000000000


@dataclass(frozen=True)
class Case:
    """One comparison to run with both tools; `runs` lists the extra flag sets to run it with."""

    name: str
    my: Path
    golden: Path
    rule: Optional[Path] = None
    runs: Tuple[Tuple[str, ...], ...] = ((),)
    note: str = ""
    deliberate: Mapping[str, str] = field(default_factory=dict)  # TensorIndex -> why opdiff differs there on purpose


@dataclass
class _Writer:
    """Golden .npy files and NPU dumps of one generated model; a producer's device output is what
    its consumers' dumps hold as input (as on the device)."""

    root: Path
    rng: np.random.Generator
    device: Dict[Tuple[str, int], Tensor] = field(default_factory=dict)
    task: int = 0

    def __post_init__(self) -> None:
        (self.root / "golden").mkdir(parents=True, exist_ok=True)
        (self.root / "npu").mkdir(parents=True, exist_ok=True)

    def golden(self, origin: str, index: int, value: np.ndarray) -> np.ndarray:
        np.save(self.root / "golden" / golden_file_name(origin, index, TS), value)
        return value

    def noisy(self, value: np.ndarray, error: float = 1e-3) -> np.ndarray:
        return (value * (1 + error * self.rng.standard_normal(value.shape))).astype(np.float32)

    def dump(self, op: RuleOp, inputs: Sequence[Tuple[str, int]], outputs: Sequence[Tensor]) -> None:
        self.task += 1
        for k, tensor in enumerate(outputs):
            self.device[(op.name, k)] = tensor
        name = device_file_name(op.type, op.name, self.task, 1, TS + self.task)
        write_dump(self.root / "npu" / name, op.name, inputs=[self.device[ref] for ref in inputs], outputs=list(outputs))


def fusion_case(root: Path, seed: int = 0) -> Case:
    """NPU vs golden with a fusion rule; every row kind of docs/reference/reference-tool.md §2.5 / §3.3 appears at least once."""
    w = _Writer(root, np.random.default_rng(seed))
    ops: List[RuleOp] = []
    # In this order: each part draws from the one generator, so the data stays as the snapshot has it.
    relu2, fc = _fusion_chain(w, ops)
    _fusion_edge_values(w, ops)
    _fusion_walk_backs(w, ops, relu2, fc)

    write_atc_json(fusion_rule(ops), root / "rule.json")
    return Case("fusion rule (generated)", root / "npu", root / "golden", root / "rule.json",
                runs=((), ("-overflow_detection",), ("-alg", "0", "1", "4"), ("-s", "1,2,5,13")),
                note="fused, one-to-multi, Cast/TransData walk-back, NC1HWC0/FRACTAL_NZ fp16, bf16, int, edge values")





def _normal(rng: np.random.Generator, *shape: int) -> NDArray[np.float32]:
    return rng.standard_normal(shape).astype(np.float32)


def _fusion_chain(w: _Writer, ops: List[RuleOp]) -> Tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Data, fused Conv, pool, Cast, MatMul, Relu, Split, a one-to-multi op and a one-element
    output; returns relu2's and fc's goldens, which later ops read."""
    rng = w.rng
    x = w.golden("input", 0, _normal(rng, 1, 24, 8, 8))
    ops.append(RuleOp("input", "Data", 0, originals=["input"], outputs=[RuleOutput("input", 0, x.shape, "NCHW")]))
    w.device[("input", 0)] = Tensor(w.noisy(x), layout="NC1HWC0", dtype="float16")  # not dumped (Data)

    relu1 = w.golden("relu1/Relu", 0, np.maximum(_normal(rng, 1, 24, 8, 8), 0))
    conv = RuleOp("conv1/Conv2D_bn_relu", "Conv2D", 1, ["input:0", "input:-1"],
                  ["conv1/Conv2D", "bn1/BatchNorm", "relu1/Relu"], [RuleOutput("relu1/Relu", 0, relu1.shape, "NCHW")])
    ops.append(conv)
    w.dump(conv, [("input", 0)], [Tensor(w.noisy(relu1), layout="NC1HWC0", dtype="float16", address=0x12C0000000)])

    pool = w.golden("pool1/MaxPool", 0, relu1[:, :, ::2, ::2].copy())
    op = RuleOp("pool1/MaxPool", "MaxPool", 2, ["conv1/Conv2D_bn_relu:0"], ["pool1/MaxPool"],
                [RuleOutput("pool1/MaxPool", 0, pool.shape, "NCHW")])
    ops.append(op)
    w.dump(op, [(conv.name, 0)], [Tensor(w.noisy(pool), layout="NC1HWC0", dtype="float16")])

    # Cast has no framework counterpart: its output and its consumers' inputs use pool1's golden.
    op = RuleOp("cast1", "Cast", 3, ["pool1/MaxPool:0"], None, [RuleOutput("", 0, pool.shape, "NCHW", "DT_FLOAT")])
    ops.append(op)
    w.dump(op, [("pool1/MaxPool", 0)], [Tensor(w.noisy(pool, 1e-6), layout="NC1HWC0", dtype="float32")])

    fc = w.golden("fc/MatMul", 0, _normal(rng, 24, 40))
    op = RuleOp("fc/MatMul", "MatMulV2", 4, ["cast1:0"], ["fc/MatMul"], [RuleOutput("fc/MatMul", 0, fc.shape)])
    ops.append(op)
    w.dump(op, [("cast1", 0)], [Tensor(w.noisy(fc), layout="FRACTAL_NZ", dtype="float16")])

    relu2 = w.golden("relu2/Relu", 0, np.maximum(fc, 0))  # zeros in the golden: masked relative errors
    op = RuleOp("relu2/Relu", "Relu", 5, ["fc/MatMul:0"], ["relu2/Relu"], [RuleOutput("relu2/Relu", 0, relu2.shape)])
    ops.append(op)
    w.dump(op, [("fc/MatMul", 0)], [Tensor(w.noisy(relu2), dtype="float16")])

    halves = [w.golden("split/Split", k, relu2[:, 20 * k:20 * (k + 1)].copy()) for k in range(2)]
    op = RuleOp("split/Split", "SplitD", 6, ["relu2/Relu:0"], ["split/Split"],
                [RuleOutput("split/Split", k, halves[k].shape) for k in range(2)])
    ops.append(op)
    w.dump(op, [("relu2/Relu", 0)], [Tensor(w.noisy(h), dtype="float16") for h in halves])

    # One framework op run as two NPU ops (one-to-multi): the first is an inner node, not compared.
    big = w.golden("big_conv", 0, _normal(rng, 24, 20))
    part0 = RuleOp("big_conv_part0", "Conv2D", 7, ["split/Split:0"], ["big_conv"], [RuleOutput("", 0, big.shape)], multiop=True)
    part1 = RuleOp("big_conv_part1", "Conv2D", 8, ["big_conv_part0:0"], ["big_conv"], [RuleOutput("big_conv", 0, big.shape)], multiop=True)
    ops += [part0, part1]
    w.dump(part0, [("split/Split", 0)], [Tensor(w.noisy(big, 0.3), dtype="float16")])
    w.dump(part1, [("big_conv_part0", 0)], [Tensor(w.noisy(big), dtype="float16")])

    w.golden("reduce/ReduceSum", 0, np.array([3.5], np.float32))  # one element: "scalar" cosine
    op = RuleOp("reduce/ReduceSum", "ReduceSum", 9, ["big_conv_part1:0"], ["reduce/ReduceSum"], [RuleOutput("reduce/ReduceSum", 0, [1])])
    ops.append(op)
    w.dump(op, [("big_conv_part1", 0)], [Tensor(np.array([3.25], np.float32), dtype="float16")])
    return relu2, fc


def _fusion_edge_values(w: _Writer, ops: List[RuleOp]) -> None:
    """bf16, all-zero goldens, fp16 overflow, NaN and an integer output."""
    rng = w.rng
    gelu = w.golden("gelu/Gelu", 0, _normal(rng, 512))
    op = RuleOp("gelu/Gelu", "Gelu", 10, ["split/Split:1"], ["gelu/Gelu"], [RuleOutput("gelu/Gelu", 0, gelu.shape, dtype="DT_BF16")])
    ops.append(op)
    w.dump(op, [("split/Split", 1)], [Tensor(w.noisy(gelu, 3e-3), dtype="bfloat16")])

    zero = w.golden("mask/Mul", 0, np.zeros(256, np.float32))  # golden all zero: cosine not computed
    op = RuleOp("mask/Mul", "Mul", 11, ["gelu/Gelu:0"], ["mask/Mul"], [RuleOutput("mask/Mul", 0, zero.shape)])
    ops.append(op)
    w.dump(op, [("gelu/Gelu", 0)], [Tensor(1e-3 * _normal(rng, 256), dtype="float16")])

    both_zero = w.golden("gate/Mul", 0, np.zeros(64, np.float32))
    op = RuleOp("gate/Mul", "Mul", 12, ["mask/Mul:0"], ["gate/Mul"], [RuleOutput("gate/Mul", 0, both_zero.shape)])
    ops.append(op)
    w.dump(op, [("mask/Mul", 0)], [Tensor(np.zeros(64, np.float32), dtype="float16")])

    exp = w.golden("exp/Exp", 0, np.exp(_normal(rng, 128)))
    hot = w.noisy(exp)
    hot[3], hot[7] = 70000.0, np.inf  # fp16 overflow (both become inf)
    op = RuleOp("exp/Exp", "Exp", 13, ["gelu/Gelu:0"], ["exp/Exp"], [RuleOutput("exp/Exp", 0, exp.shape)])
    ops.append(op)
    w.dump(op, [("gelu/Gelu", 0)], [Tensor(hot, dtype="float16")])

    log = w.golden("log/Log", 0, _normal(rng, 128))
    broken = w.noisy(log)
    broken[5] = np.nan
    op = RuleOp("log/Log", "Log", 14, ["exp/Exp:0"], ["log/Log"], [RuleOutput("log/Log", 0, log.shape)])
    ops.append(op)
    w.dump(op, [("exp/Exp", 0)], [Tensor(broken, dtype="float16")])

    idx = w.golden("argmax/ArgMax", 0, rng.integers(0, 40, 64).astype(np.int64))
    op = RuleOp("argmax/ArgMax", "ArgMaxV2", 15, ["log/Log:0"], ["argmax/ArgMax"], [RuleOutput("argmax/ArgMax", 0, idx.shape, dtype="DT_INT32")])
    ops.append(op)
    w.dump(op, [("log/Log", 0)], [Tensor(idx.astype(np.int32), dtype="int32")])


def _fusion_walk_backs(w: _Writer, ops: List[RuleOp], relu2: NDArray[np.float32], fc: NDArray[np.float32]) -> None:
    """An op without a golden file, one without a dump, a TransData walked back, and the faulty op."""
    rng = w.rng
    op = RuleOp("tanh/Tanh", "Tanh", 16, ["relu2/Relu:0"], ["tanh/Tanh"], [RuleOutput("tanh/Tanh_src", 0, [24, 40])])
    ops.append(op)  # its golden file was never written
    w.dump(op, [("relu2/Relu", 0)], [Tensor(np.tanh(relu2), dtype="float16")])

    ops.append(RuleOp("sigmoid/Sigmoid", "Sigmoid", 17, ["relu2/Relu:0"], ["sigmoid/Sigmoid"],
                      [RuleOutput("sigmoid/Sigmoid", 0, [24, 40])]))  # no dump on the device
    w.golden("sigmoid/Sigmoid", 0, _normal(rng, 24, 40))

    # TransData back to NZ; its consumer's input is compared with relu2's golden.
    op = RuleOp("trans/TransData", "TransData", 18, ["relu2/Relu:0"], None, [RuleOutput("", 0, [24, 40])])
    ops.append(op)
    w.dump(op, [("relu2/Relu", 0)], [Tensor(w.noisy(relu2), layout="FRACTAL_NZ", dtype="float16")])

    add = w.golden("add/Add", 0, _normal(rng, 24, 40))
    op = RuleOp("add/Add", "Add", 19, ["trans/TransData:0", "fc/MatMul:0"], ["add/Add"], [RuleOutput("add/Add", 0, add.shape)])
    ops.append(op)
    w.dump(op, [("trans/TransData", 0), ("fc/MatMul", 0)], [Tensor(w.noisy(add, 0.5), dtype="float16")])  # the faulty op


def npu_vs_npu_case(root: Path, seed: int = 1) -> Case:
    """Two NPU dump folders matched by op name: layouts, ops on one side only, a shape mismatch,
    an op dumped twice (the newest file counts)."""
    rng = np.random.default_rng(seed)
    sides = {side: root / side for side in ("before", "after")}
    for folder in sides.values():
        folder.mkdir(parents=True, exist_ok=True)
    specs: List[Tuple[str, str, Callable[[], NDArray[np.float64]], str]] = [
        ("Conv2D", "conv1", lambda: rng.standard_normal((1, 24, 6, 6)), "NC1HWC0"),
        ("MatMulV2", "fc", lambda: rng.standard_normal((20, 40)), "FRACTAL_NZ"),
        ("Relu", "relu", lambda: np.maximum(rng.standard_normal(300), 0), "ND"),
        ("Reshape", "reshape", lambda: rng.standard_normal((4, 4)), "ND"),
    ]
    for task, (op_type, name, make, layout) in enumerate(specs, start=1):
        x, y = make().astype(np.float32), make().astype(np.float32)
        for side, folder in sides.items():
            scale = 1.0 if side == "before" else 1.002
            out_y = y if name != "reshape" or side == "before" else y.reshape(2, 8)  # shapes differ
            write_dump(folder / device_file_name(op_type, name, task, 1, TS + task), name,
                       inputs=[Tensor(x * scale, layout=layout, dtype="float16")],
                       outputs=[Tensor(out_y * scale, layout=layout, dtype="float16")])
    # conv1 dumped again later on the "after" side with a fault: the newest file is compared
    again = rng.standard_normal((1, 24, 6, 6)).astype(np.float32)
    write_dump(sides["after"] / f"Conv2D.conv1.9.1.{TS + 9}", "conv1",
               inputs=[Tensor(again, layout="NC1HWC0", dtype="float16")], outputs=[Tensor(again, layout="NC1HWC0", dtype="float16")])
    write_dump(sides["before"] / f"Add.only_before.5.1.{TS + 5}", "only_before", outputs=[rng.standard_normal(8).astype(np.float16)])
    write_dump(sides["after"] / f"Mul.only_after.6.1.{TS + 6}", "only_after", outputs=[rng.standard_normal(8).astype(np.float16)])
    return Case("npu vs npu (op names)", sides["after"], sides["before"], note="NC1HWC0, FRACTAL_NZ, ND; one-sided ops; shape mismatch; repeat dump")


def ffts_manual_case(root: Path, seed: int = 2) -> Case:
    """FFTS+ against FFTS+ by op name: an op dumped as manual-mode slices (``conv1_lxslice0``,
    ``conv1_lxslice1``) on both sides, one slice faulty on the newer side, and an op not sliced.
    Without -ffts the slices are one op; with it each slice is compared with its namesake."""
    rng = np.random.default_rng(seed)
    sides = {side: root / side for side in ("before", "after")}
    for folder in sides.values():
        folder.mkdir(parents=True, exist_ok=True)
    halves = [rng.standard_normal((1, 16, 4, 4)).astype(np.float32) for _ in range(2)]
    plain = rng.standard_normal((4, 8)).astype(np.float32)
    for side, folder in sides.items():
        for k, half in enumerate(halves):
            value = half * (1.3 if side == "after" and k == 1 else 1.0)
            write_dump(folder / device_file_name("Conv2D", f"conv1_lxslice{k}", 3 + k, 1, TS + 3 + k), f"conv1_lxslice{k}",
                       inputs=[Tensor(half, dtype="float16")], outputs=[Tensor(value, layout="NC1HWC0", dtype="float16")])
        write_dump(folder / device_file_name("Relu", "relu", 7, 1, TS + 7), "relu", outputs=[Tensor(plain, dtype="float16")])
    return Case("FFTS+ manual slices (npu vs npu)", sides["after"], sides["before"], runs=((), ("-ffts",)),
                note="slices conv1_lxslice0/1: joined as one op, or with -ffts compared slice by slice")


def atc_sample_cases(root: Path, samples: Sequence[Path]) -> List[Case]:
    """Each real atc JSON sample (the project's are in tests/data/atc-json) with dumps generated to
    match it (tests.support.graph_dumps)."""
    cases = []
    for sample in samples:
        fm = opdiff.read_graph(sample)
        candidates = [op for op in fm.ops if op.type in ("Conv2D", "MatMulV2", "ConcatD", "Transpose", "TransposeD")]
        faulty = candidates[len(candidates) // 2].name if candidates else None
        dumps = write_graph_dumps(fm, root / sample.stem, faulty_op=faulty, max_elements=1 << 14)
        cases.append(Case(f"atc sample {sample.name}", dumps.npu, dumps.golden, sample,
                          note=f"{dumps.ops_dumped} NPU dumps, {dumps.golden_files} golden files, faulty op {faulty}"))
    return cases


def difference_cases(root: Path) -> List[Case]:
    """The differences found on TensorFlow-converted models (tests.support.difference_cases)."""
    groups, layouts = group_case(root / "groups"), layout_case(root / "layouts")
    return [
        Case("groups of several NPU ops (quantized)", groups.my, groups.golden, groups.rule,
             note="one-to-multi with a Const member, a group without dumps, many-to-many with an inner node"),
        Case("layouts from the dump's own original shape", layouts.my, layouts.golden, layouts.rule,
             note="TransData into FRACTAL_NZ that flattens, NHWC origin, folded reshapes, transposed golden, NCHW vs NHWC",
             deliberate=layouts.deliberate),
    ]


def all_cases(root: Path, atc_samples: Sequence[Path]) -> List[Case]:
    return [fusion_case(root / "fusion"), npu_vs_npu_case(root / "npu_vs_npu"), *atc_sample_cases(root / "atc", atc_samples)]


__all__ = ["Case", "all_cases", "atc_sample_cases", "difference_cases", "fusion_case", "npu_vs_npu_case"]

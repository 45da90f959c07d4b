"""The NPU side of a TensorFlow training run, written with the project's writers: a device dump tree
``{time}/{device}/ge_default_{ts}_{n}/{model_id}/{step}/`` with three graphs (the variables'
initialisation, the training step: forward, backward and the SGD updates, and a small summary
graph), the graphs' rules (GE graph dumps or atc JSONs, one file per graph) and the golden `.npy`
of the same steps, in one folder per step (or flat, for one step).

The network is a dense layer, ReLU, a second dense layer and softmax cross-entropy, computed with
numpy in float32 (the golden) and stored by the device in float16. One gradient op can be made
faulty (`FAULTY`: the weight gradient of the second layer, a column of it negated); its inputs stay
right, so the advisor names it the culprit. The training graph's dump folder may carry a
timestamp one second later than its graph's name, as the reference's batch mode allows.

>>> import tempfile
>>> tree = write_training_tree(Path(tempfile.mkdtemp()), steps=(0,))
>>> sorted(path.name for path in (tree.root / "0").iterdir())
['ge_default_20260101120000_1', 'ge_default_20260101120000_5', 'ge_default_20260101120001_73']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import numpy as np

from opdiff.conventions.dump_names import device_file_name, golden_file_name
from opdiff.dumps import Tensor, write_dump
from opdiff.graph import FusionMap, write_atc_json
from opdiff.graph.ge.writer import write_ge_graph_dumps
from opdiff.graph.model_def_builder import model_def_from_fusion_map
from opdiff.graph.rule_builder import RuleOp, RuleOutput, fusion_rule

TIME = "20260101120000"
MODEL_ID = "1"
STAMP = 1767268800000000
LEARNING_RATE = 0.1
FAULTY = "gradients/dense_1/MatMul_grad/MatMul_1"
INIT, TRAIN, SUMMARY = (f"ge_default_{TIME}_{n}" for n in (1, 73, 5))
SHIFTED = f"ge_default_{int(TIME) + 1}_73"  # the training graph's dump folder, one second later
Values = Dict[str, np.ndarray]  # "{framework op}.{output}" -> its value


@dataclass
class TrainingTree:
    """Where everything is, and what the rules map: graph name -> its dump folder's name, and
    graph -> the NPU ops dumped there whose outputs the rule gives a golden."""

    root: Path  # the {time} folder
    golden: Path
    rules: Path  # a folder: one GE graph dump or atc JSON per graph
    steps: Tuple[int, ...]
    folders: Dict[str, str] = field(default_factory=dict)
    mapped: Dict[str, List[str]] = field(default_factory=dict)

    def step_folder(self, graph: str, step: int, device: int = 0) -> Path:
        return self.root / str(device) / self.folders[graph] / MODEL_ID / str(step)


def _out(origin: str, shape: Sequence[int], index: int = 0) -> RuleOutput:
    return RuleOutput(origin, index, list(shape), "ND", dtype="DT_FLOAT")


def _forward(rng: np.random.Generator) -> Values:
    v: Values = {"x.0": rng.standard_normal((4, 8)), "labels.0": np.eye(3)[rng.integers(0, 3, 4)],
                 "learning_rate.0": np.full((1,), LEARNING_RATE)}
    for layer, (fan_in, fan_out) in (("dense", (8, 16)), ("dense_1", (16, 3))):
        v[f"{layer}/kernel.0"] = rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)
        v[f"{layer}/bias.0"] = 0.1 + 0.1 * rng.standard_normal(fan_out)
    v["dense/BiasAdd.0"] = v["x.0"] @ v["dense/kernel.0"] + v["dense/bias.0"]
    v["dense/Relu.0"] = np.maximum(v["dense/BiasAdd.0"], 0)
    v["dense_1/BiasAdd.0"] = v["dense/Relu.0"] @ v["dense_1/kernel.0"] + v["dense_1/bias.0"]
    logits = v["dense_1/BiasAdd.0"]
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    v["loss/xentropy.0"] = -(v["labels.0"] * np.log(p)).sum(axis=1)
    v["loss/xentropy.1"] = p - v["labels.0"]
    return v


def _backward(v: Values) -> Values:
    g = "gradients/"
    v[g + "loss/xentropy_grad/mul.0"] = v["loss/xentropy.1"] / 4
    dlogits = v[g + "loss/xentropy_grad/mul.0"]
    v[g + "dense_1/BiasAdd_grad/BiasAddGrad.0"] = dlogits.sum(axis=0)
    v[g + "dense_1/MatMul_grad/MatMul.0"] = dlogits @ v["dense_1/kernel.0"].T
    v[FAULTY + ".0"] = v["dense/Relu.0"].T @ dlogits
    v[g + "dense/Relu_grad/ReluGrad.0"] = v[g + "dense_1/MatMul_grad/MatMul.0"] * (v["dense/Relu.0"] > 0)
    v[g + "dense/BiasAdd_grad/BiasAddGrad.0"] = v[g + "dense/Relu_grad/ReluGrad.0"].sum(axis=0)
    v[g + "dense/MatMul_grad/MatMul_1.0"] = v["x.0"].T @ v[g + "dense/Relu_grad/ReluGrad.0"]
    for layer, grad in (("dense", g + "dense/MatMul_grad/MatMul_1.0"), ("dense_1", FAULTY + ".0")):
        v[f"GradientDescent/update_{layer}/kernel/ApplyGradientDescent.0"] = v[f"{layer}/kernel.0"] - LEARNING_RATE * v[grad]
    v["summary/scale.0"] = 0.5 * v["dense_1/BiasAdd.0"]
    for layer in ("dense", "dense_1"):
        v[f"{layer}/kernel/Assign.0"] = v[f"{layer}/kernel.0"]
        v[f"{layer}/bias/Assign.0"] = v[f"{layer}/bias.0"]
    return {name: value.astype(np.float32) for name, value in v.items()}


def _sources(names: Sequence[str], v: Values, first_id: int) -> List[RuleOp]:
    """Ops the graph reads but the device does not dump (inputs and variables): Data ops."""
    return [RuleOp(name, "Data", first_id + k, [], [name], [_out(name, v[f"{name}.0"].shape)]) for k, name in enumerate(names)]


def _graph_ops(v: Values) -> Dict[str, List[RuleOp]]:
    """Each graph's ops in execution order; the NPU fuses each MatMul with its BiasAdd."""
    g, s = "gradients/", lambda name: v[f"{name}.0"].shape
    sources = ["x", "labels", "learning_rate", "dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"]
    train = _sources(sources, v, 0) + [
        RuleOp("dense/MatMul_BiasAdd", "MatMulV2", 10, ["x:0", "dense/kernel:0", "dense/bias:0"], ["dense/MatMul", "dense/BiasAdd"],
               [_out("dense/BiasAdd", s("dense/BiasAdd"))]),
        RuleOp("dense/Relu", "Relu", 11, ["dense/MatMul_BiasAdd:0"], ["dense/Relu"], [_out("dense/Relu", s("dense/Relu"))]),
        RuleOp("dense_1/MatMul_BiasAdd", "MatMulV2", 12, ["dense/Relu:0", "dense_1/kernel:0", "dense_1/bias:0"],
               ["dense_1/MatMul", "dense_1/BiasAdd"], [_out("dense_1/BiasAdd", s("dense_1/BiasAdd"))]),
        RuleOp("loss/xentropy", "SoftmaxCrossEntropyWithLogits", 13, ["dense_1/MatMul_BiasAdd:0", "labels:0"], ["loss/xentropy"],
               [_out("loss/xentropy", s("loss/xentropy")), _out("loss/xentropy", s("loss/xentropy"), 1)]),
    ]
    backward = [
        (g + "loss/xentropy_grad/mul", "Mul", ["loss/xentropy:1"]),
        (g + "dense_1/BiasAdd_grad/BiasAddGrad", "BiasAddGrad", [g + "loss/xentropy_grad/mul:0"]),
        (g + "dense_1/MatMul_grad/MatMul", "MatMulV2", [g + "loss/xentropy_grad/mul:0", "dense_1/kernel:0"]),
        (FAULTY, "MatMulV2", ["dense/Relu:0", g + "loss/xentropy_grad/mul:0"]),
        (g + "dense/Relu_grad/ReluGrad", "ReluGrad", [g + "dense_1/MatMul_grad/MatMul:0", "dense/Relu:0"]),
        (g + "dense/BiasAdd_grad/BiasAddGrad", "BiasAddGrad", [g + "dense/Relu_grad/ReluGrad:0"]),
        (g + "dense/MatMul_grad/MatMul_1", "MatMulV2", ["x:0", g + "dense/Relu_grad/ReluGrad:0"]),
        ("GradientDescent/update_dense/kernel/ApplyGradientDescent", "ApplyGradientDescent",
         ["dense/kernel:0", "learning_rate:0", g + "dense/MatMul_grad/MatMul_1:0"]),
        ("GradientDescent/update_dense_1/kernel/ApplyGradientDescent", "ApplyGradientDescent",
         ["dense_1/kernel:0", "learning_rate:0", FAULTY + ":0"]),
    ]
    train += [RuleOp(name, kind, 20 + k, inputs, [name], [_out(name, s(name))]) for k, (name, kind, inputs) in enumerate(backward)]
    assigns = [f"{layer}/{var}" for layer in ("dense", "dense_1") for var in ("kernel", "bias")]
    init = _sources(assigns, v, 0) + [RuleOp(f"{name}/Assign", "Assign", 10 + k, [f"{name}:0"], [f"{name}/Assign"],
                                             [_out(f"{name}/Assign", s(name))]) for k, name in enumerate(assigns)]
    summary = _sources(["dense_1/BiasAdd"], v, 0) + [
        RuleOp("summary/scale", "Mul", 10, ["dense_1/BiasAdd:0"], ["summary/scale"], [_out("summary/scale", s("summary/scale"))])]
    return {INIT: init, TRAIN: train, SUMMARY: summary}


def _device_value(v: Values, key: str, faulty: bool) -> np.ndarray:
    value = v[key].copy()
    if faulty and key == FAULTY + ".0":
        value[:, 0] *= -1
    return value


def _write_step(folder: Path, ops: Sequence[RuleOp], v: Values, fault: bool, stamp: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for task, op in enumerate((op for op in ops if op.type != "Data"), start=1):
        inputs = [Tensor(_device_value(v, _key(ops, ref), fault), dtype="float16") for ref in op.inputs]
        outputs = [Tensor(_device_value(v, f"{out.origin}.{out.index}", fault), dtype="float16") for out in op.outputs]
        write_dump(folder / device_file_name(op.type, op.name, task, 1, stamp + task), op.name, inputs=inputs, outputs=outputs)


def _key(ops: Sequence[RuleOp], ref: str) -> str:
    """The value key of input `ref` ("producer:index"): its producer's output desc's origin."""
    name, index = ref.rsplit(":", 1)
    out = next(op for op in ops if op.name == name).outputs[int(index)]
    return f"{out.origin}.{out.index}"


def _write_rules(folder: Path, rules: Dict[str, FusionMap], form: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for number, (graph, rule) in enumerate(rules.items()):
        if form == "json":
            write_atc_json(rule, folder / f"{graph}.json")
        else:
            write_ge_graph_dumps(folder, model_def_from_fusion_map(rule), stages=("Build",), first_number=number, graph_id=number + 1)


def step_values(step: int, seed: int = 33) -> Values:
    """Every framework op output of training step `step` (the golden), as the tree's golden holds it."""
    return _backward(_forward(np.random.default_rng(seed + step)))


def write_training_tree(folder: Path, *, steps: Sequence[int] = (0, 5, 10), rule_form: str = "ge", fault: bool = True,
                        golden_steps: bool = True, shifted: bool = True, seed: int = 33) -> TrainingTree:
    """Write ``folder/{TIME}/0/...`` (every graph dumped at every step of `steps`), ``folder/golden``
    (a folder per step, or flat when not `golden_steps`) and ``folder/rules`` (`rule_form` "ge" or
    "json"). The training graph's dump is faulty at every step when `fault`."""
    tree = TrainingTree(folder / TIME, folder / "golden", folder / "rules", tuple(steps))
    tree.folders = {INIT: INIT, TRAIN: SHIFTED if shifted else TRAIN, SUMMARY: SUMMARY}
    ops_of: Dict[str, List[RuleOp]] = {}
    for number, step in enumerate(steps):
        v = step_values(step, seed)
        ops_of = _graph_ops(v)
        golden = tree.golden / str(step) if golden_steps else tree.golden
        golden.mkdir(parents=True, exist_ok=True)
        for key, value in v.items():
            name, index = key.rsplit(".", 1)
            np.save(golden / golden_file_name(name, int(index), STAMP + step), value)
        for k, (graph, ops) in enumerate(ops_of.items()):
            _write_step(tree.step_folder(graph, step), ops, v, fault and graph == TRAIN, STAMP + 1000 * (10 * number + k + 1))
    _write_rules(tree.rules, {graph: fusion_rule(ops, graph=graph) for graph, ops in ops_of.items()}, rule_form)
    tree.mapped = {graph: [op.name for op in ops if op.type != "Data"] for graph, ops in ops_of.items()}
    return tree


__all__ = ["FAULTY", "INIT", "SHIFTED", "SUMMARY", "TIME", "TRAIN", "TrainingTree", "step_values", "write_training_tree"]

"""Dump trees for the many-run tests and the benchmark: the demo network dumped by several devices
over several steps in the device layout ``{time}/{device}/{model}/{model_id}/{step}/``, one golden
folder of the framework run, and the fusion rule named after the model (so a folder of rules
finds it). One run can be made faulty from an op on."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

import opdiff
from opdiff.conventions.dump_names import device_file_name, golden_file_name
from opdiff.demo.fusion import NpuOp, fuse, fusion_rule, layout_of
from opdiff.demo.network import build_network, run_network, with_fault
from opdiff.dumps import Tensor
from opdiff.dumps.writer import save_npy
from opdiff.graph import write_atc_json
from opdiff.graph.grouping import build_fusion_map

TIME = "20260101120000"
MODEL_ID = "1"
STAMP = 1767268800000000  # 16 digits: dump timestamps sort as the reference sorts them


@dataclass(frozen=True)
class Fault:
    """Run (device, step) computes `op` with a quarter of its output channels' weights scaled."""

    device: int
    step: int
    op: str = "block2/conv1"
    scale: float = 1.5


@dataclass
class DumpTree:
    root: Path  # the {time} folder
    golden: Path
    rule: Path
    model: str
    devices: Tuple[int, ...]
    steps: Tuple[int, ...]
    npu_ops: Dict[str, Tuple[str, ...]] = field(default_factory=dict)  # NPU op -> the framework ops it fuses, in order
    dump_bytes: int = 0  # bytes of every NPU dump written

    def run_folder(self, device: int, step: int) -> Path:
        return self.root / str(device) / self.model / MODEL_ID / str(step)

    def fused_op_of(self, framework_op: str) -> str:
        """The NPU op that computes `framework_op` (a fault in a conv shows in its fused op)."""
        return next(name for name, members in self.npu_ops.items() if framework_op in members)


def write_dump_tree(folder: Path, *, devices: Sequence[int] = (0, 1), steps: Sequence[int] = (0, 1),
                    model: str = "demo_net", fault: Optional[Fault] = None, image_size: int = 32,
                    seed: int = 0, golden: bool = True) -> DumpTree:
    """Write ``folder/{TIME}/...`` (and ``folder/golden``, ``folder/{model}.json``). `image_size` 64
    makes the first tensors 16 x 64 x 64 = 64K elements."""
    ops = build_network(seed)
    image = np.random.default_rng(seed + 1).standard_normal((1, 3, image_size, image_size)).astype(np.float32)
    framework = run_network(ops, image)
    npu_ops = fuse(ops)
    tree = DumpTree(folder / TIME, folder / "golden", folder / f"{model}.json", model, tuple(devices), tuple(steps),
                    {op.name: op.members for op in npu_ops})
    if golden:
        tree.golden.mkdir(parents=True, exist_ok=True)
        for name, array in framework.items():
            save_npy(tree.golden / golden_file_name(name, 0, STAMP), array)
    rule = fusion_rule(npu_ops, {name: array.shape for name, array in framework.items()})
    write_atc_json(build_fusion_map(model, [(model, list(rule.ops))]), tree.rule)
    outputs: Dict[bool, Dict[str, np.ndarray]] = {False: run_network(ops, image, np.float16)}
    if fault is not None:
        outputs[True] = run_network(with_fault(ops, fault.op, fault.scale), image, np.float16)
    for number, (device, step) in enumerate((d, s) for d in devices for s in steps):
        faulty = fault is not None and (fault.device, fault.step) == (device, step)
        tree.dump_bytes += _write_run(tree.run_folder(device, step), npu_ops, outputs[faulty],
                                      STAMP + 1_000_000 * (number + 1))
    return tree


def _write_run(folder: Path, npu_ops: Sequence[NpuOp], device: Dict[str, np.ndarray], stamp: int) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for task, op in enumerate(npu_ops, start=1):
        inputs = [Tensor(device[name], layout=layout_of(device[name]), dtype="float16") for name in op.inputs]
        output = device[op.output]
        path = folder / device_file_name(op.type, op.name, task, 1, stamp + task)
        opdiff.write_dump(path, op.name, inputs=inputs, outputs=[Tensor(output, layout=layout_of(output), dtype="float16")])
        written += path.stat().st_size
    return written

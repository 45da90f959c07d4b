"""A statistics-dump network for tests, docs and benchmarks: a chain of NPU ops (two of them fused
from framework ops, as ATC fuses them), its fusion rule (atc JSON), a golden .npy per framework op
and the device's statistics CSVs, in one stored layout and data type, optionally with a scale
fault on every op output from op k on.

Shapes are chosen so that padded layouts pad: NCHW / NC1HWC0 use (2, 5, 7, 6) (C = 5, C0 = 16),
ND / FRACTAL_NZ use (37, 50) (tiles of 16 x 16). The device values are the golden rounded to the
data type (times the fault's scale from op k on); op i's input is op i-1's output.

>>> import tempfile
>>> from pathlib import Path
>>> case = write_statistics_case(Path(tempfile.mkdtemp()), layout="FRACTAL_NZ", dtype="bfloat16")
>>> len(list(case.npu.iterdir())), len(list(case.golden.iterdir()))
(6, 9)

Compared, a case with a fault gives a StatisticsReport:

>>> import opdiff
>>> case = write_statistics_case(Path(tempfile.mkdtemp()), layout="NC1HWC0", dtype="float16", fault_from=3)
>>> report = opdiff.compare(case.npu, case.golden, fusion_rule=case.rule)
>>> report.first_failure().tensor_index, report.summary()["failing"]
('layer4/mul:output:0', 5)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Tuple

import numpy as np

from opdiff.conventions.dump_names import device_file_name, escape_op_name, golden_file_name
from opdiff.demo.fusion import NpuOp, fusion_rule
from opdiff.dumps import Tensor, write_dump
from opdiff.dumps.statistics_writer import write_statistics
from opdiff.dumps.writer import save_npy
from opdiff.graph import write_atc_json
from opdiff.numerics.dtypes import NUMPY_DTYPES

LAYOUTS = ("ND", "NCHW", "NC1HWC0", "FRACTAL_NZ")
DTYPES = ("float16", "bfloat16", "float32")
TIMESTAMP = 1700000000000000
NPU_OPS = (
    NpuOp("layer1/relu_fused", "Conv2D", ("layer1/conv", "layer1/relu"), ("input",)),
    NpuOp("layer2/add", "Add", ("layer2/add",), ("layer1/relu",)),
    NpuOp("layer3/bn_fused", "Conv2D", ("layer3/conv", "layer3/bn"), ("layer2/add",)),
    NpuOp("layer4/mul", "Mul", ("layer4/mul",), ("layer3/bn",)),
    NpuOp("layer5/conv", "Conv2D", ("layer5/conv",), ("layer4/mul",)),
    NpuOp("layer6/relu", "Relu", ("layer6/relu",), ("layer5/conv",)),
)


@dataclass(frozen=True)
class StatisticsCase:
    """The paths of a written case; ``npu_ops`` are the NPU op names as the files carry them."""

    npu: Path
    golden: Path
    rule: Path
    npu_ops: Tuple[str, ...]


def logical_shape(layout: str) -> Tuple[int, ...]:
    return (2, 5, 7, 6) if layout in ("NCHW", "NC1HWC0") else (37, 50)


def golden_outputs(layout: str, seed: int) -> Dict[str, np.ndarray]:
    """The golden (float32) output of the input and of every framework op; Relu outputs are >= 0,
    each op's values have their own offset and spread, so means are not all near 0."""
    rng = np.random.default_rng(seed)
    shape = logical_shape(layout)
    outputs: Dict[str, np.ndarray] = {}
    names = ["input"] + [member for op in NPU_OPS for member in op.members]
    for number, name in enumerate(names):
        values = (rng.standard_normal(shape) * (1 + number % 3) + 0.3 * number).astype(np.float32)
        outputs[name] = np.maximum(values, 0) if name.endswith("relu") else values
    return outputs


def write_statistics_case(folder: Path, *, layout: str = "NC1HWC0", dtype: str = "float16", fault_from: Optional[int] = None,
                          scale: float = 1.6, seed: int = 0, full_dumps: bool = False) -> StatisticsCase:
    """Write ``folder/golden`` (.npy per framework op), ``folder/npu`` (one statistics CSV per NPU
    op execution; full dumps instead with `full_dumps`) and ``folder/model.json`` (the fusion
    rule). From NPU op `fault_from` (0-based) on, every output is multiplied by `scale`."""
    if layout not in LAYOUTS or dtype not in DTYPES:
        raise ValueError(f"layout one of {LAYOUTS}, dtype one of {DTYPES}; got {layout}, {dtype}")
    golden = golden_outputs(layout, seed)
    paths = StatisticsCase(folder / "npu", folder / "golden", folder / "model.json", tuple(escape_op_name(op.name) for op in NPU_OPS))
    paths.npu.mkdir(parents=True, exist_ok=True)
    paths.golden.mkdir(parents=True, exist_ok=True)
    for name, array in golden.items():
        save_npy(paths.golden / golden_file_name(name, 0, TIMESTAMP), array)
    stored = NUMPY_DTYPES[dtype]
    previous = golden["input"].astype(stored)
    for task, op in enumerate(NPU_OPS):
        factor = np.float32(scale if fault_from is not None and task >= fault_from else 1.0)
        output = (golden[op.output] * factor).astype(stored)
        name = device_file_name(op.type, op.name, task + 1, 1, TIMESTAMP + task + 1)
        inputs, outputs = [Tensor(previous, layout=layout)], [Tensor(output, layout=layout)]
        if full_dumps:
            write_dump(paths.npu / name, op.name, inputs=inputs, outputs=outputs)
        else:
            write_statistics(paths.npu / f"{name}.csv", inputs=inputs, outputs=outputs)
        previous = output
    shapes = {name: array.shape for name, array in golden.items()}
    write_atc_json(fusion_rule(list(NPU_OPS), shapes), paths.rule)
    return paths


__all__ = ["DTYPES", "LAYOUTS", "NPU_OPS", "StatisticsCase", "write_statistics_case"]

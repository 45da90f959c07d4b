"""A generated chain network whose device run is the golden plus independent Gaussian noise, in one
stored layout and data type, written both as full dumps and as statistics dumps of the very same
tensors: the case on which the tensor verdict and the statistics verdict must agree (a tensor that
passes the one passes the other, docs/metrics.md).

The golden is a chain of `ops` framework ops (op 0 the model input; then channel mixing by a random
orthogonal matrix, a leaky ReLU, re-standardised, then given the op's own spread and an offset of
``offset`` x k, so that means are not all near 0), computed in float64 and stored as float32 .npy.
Each device tensor is the golden plus noise of standard deviation ``noise`` x mean |golden|, drawn
independently per element, then stored in the data type and layout (shapes as in
opdiff.demo.statistics_network, so that NC1HWC0 and FRACTAL_NZ pad); with `fault_from`, every output
from that op on is multiplied by `scale`. A clean device run (the golden stored in the same form, no
noise) is written too, to compare against NPU vs NPU.

>>> import tempfile
>>> from pathlib import Path
>>> case = write_noise_case(Path(tempfile.mkdtemp()), layout="FRACTAL_NZ", dtype="bfloat16", ops=4)
>>> len(list(case.full.iterdir())), len(list(case.statistics.iterdir())), len(list(case.golden.iterdir()))
(3, 3, 4)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

import numpy as np

from opdiff.conventions.dump_names import device_file_name, golden_file_name
from opdiff.demo.fusion import NpuOp, fusion_rule
from opdiff.demo.statistics_network import DTYPES, LAYOUTS, TIMESTAMP, logical_shape
from opdiff.dumps import Tensor, write_dump
from opdiff.dumps.statistics_writer import write_statistics
from opdiff.dumps.writer import save_npy
from opdiff.graph import write_atc_json

INPUT = "input"  # op 0: the model input, a Data op without a dump


@dataclass(frozen=True)
class NoiseCase:
    """The folders of a written case; ``op_names[k]`` is op k (``op_names[0]`` the model input)."""

    golden: Path  # .npy per framework op
    rule: Path  # the fusion rule (atc JSON)
    full: Path  # the noisy device run, full dumps
    statistics: Path  # the same tensors, statistics dumps
    reference_full: Path  # the clean device run, full dumps
    reference_statistics: Path  # the clean device run, statistics dumps
    op_names: Tuple[str, ...]


def golden_chain(ops: int, shape: Tuple[int, ...], seed: int, offset: float) -> List[np.ndarray]:
    """The golden output of every op in float64 (op 0 the model input)."""
    rng = np.random.default_rng(seed)
    base = rng.standard_normal(shape)
    values = [base]
    channels = shape[1]
    for k in range(1, ops):
        mix, _ = np.linalg.qr(rng.standard_normal((channels, channels)))
        y = np.einsum("oc,nc...->no...", mix, base)
        y = np.where(y > 0, y, 0.2 * y)
        base = (y - y.mean()) / y.std()
        values.append(base * (1 + k % 3) + offset * k)
    return values


def noisy(values: List[np.ndarray], noise: float, seed: int, fault_from: Optional[int], scale: float) -> List[np.ndarray]:
    """Each tensor plus independent Gaussian noise of sigma = noise x mean |tensor|; every tensor
    from `fault_from` on times `scale`."""
    rng = np.random.default_rng(seed + 1)
    out = []
    for k, value in enumerate(values):
        device = value + rng.standard_normal(value.shape) * (noise * float(np.mean(np.abs(value))))
        out.append(device * scale if fault_from is not None and k >= fault_from else device)
    return out


def _write_run(folder: Path, names: Tuple[str, ...], values: List[np.ndarray], layout: str, dtype: str, *,
               statistics: bool) -> None:
    """One dump (or statistics CSV) per NPU op k >= 1: input op k-1's tensor, output op k's."""
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(1, len(names)):
        name = device_file_name("Conv2D", names[k], k, 1, TIMESTAMP + k)
        inputs = [Tensor(values[k - 1].astype(np.float32), layout=layout, dtype=dtype)]
        outputs = [Tensor(values[k].astype(np.float32), layout=layout, dtype=dtype)]
        if statistics:
            write_statistics(folder / f"{name}.csv", inputs=inputs, outputs=outputs)
        else:
            write_dump(folder / name, names[k], inputs=inputs, outputs=outputs)


def write_noise_case(folder: Path, *, layout: str = "NC1HWC0", dtype: str = "float16", ops: int = 30, noise: float = 1e-3,
                     fault_from: Optional[int] = None, scale: float = 1.6, offset: float = 0.3, seed: int = 0) -> NoiseCase:
    """Write the golden, the rule, the noisy device run and the clean one under `folder`."""
    if layout not in LAYOUTS or dtype not in DTYPES:
        raise ValueError(f"layout one of {LAYOUTS}, dtype one of {DTYPES}; got {layout}, {dtype}")
    names = (INPUT,) + tuple(f"op{k}" for k in range(1, ops))
    golden = golden_chain(ops, logical_shape(layout), seed, offset)
    case = NoiseCase(folder / "golden", folder / "model.json", folder / "npu_full", folder / "npu_statistics",
                     folder / "reference_full", folder / "reference_statistics", names)
    case.golden.mkdir(parents=True, exist_ok=True)
    for name, value in zip(names, golden):
        save_npy(case.golden / golden_file_name(name, 0, TIMESTAMP), value.astype(np.float32))
    device = noisy(golden, noise, seed, fault_from, scale)
    for target, values, statistics in ((case.full, device, False), (case.statistics, device, True),
                                       (case.reference_full, golden, False), (case.reference_statistics, golden, True)):
        _write_run(target, names, values, layout, dtype, statistics=statistics)
    npu_ops = [NpuOp(names[k], "Conv2D", (names[k],), (names[k - 1],)) for k in range(1, ops)]
    write_atc_json(fusion_rule(npu_ops, {name: value.shape for name, value in zip(names, golden)}), case.rule)
    return case


__all__ = ["NoiseCase", "golden_chain", "write_noise_case"]

"""Dumps that match a fusion map: golden .npy files for every framework output the map names, and
one fp16 Ascend dump per NPU op (4-D outputs in NC1HWC0), holding the golden values plus noise. For
tests and benchmarks of the compare pipeline on real graphs (e.g. the atc JSON samples)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Tuple

import numpy as np

from opdiff.conventions.dump_names import device_file_name, golden_file_name
from opdiff.dumps import Tensor, write_dump
from opdiff.dumps.writer import save_npy
from opdiff.graph import FusionMap, Op, OutputDesc
from opdiff.match.op_matching import PASS_THROUGH_TYPES

NOT_DUMPED = ("Data", "NetOutput")  # the device writes no dump for these
TIMESTAMP = 1700000000000000


@dataclass(frozen=True)
class GraphDumps:
    npu: Path
    golden: Path
    ops_dumped: int
    golden_files: int


def _shape(desc: OutputDesc, max_elements: int) -> Tuple[int, ...]:
    shape = tuple(int(d) for d in (desc.origin_shape or (8,)))
    if any(d <= 0 for d in shape):
        shape = tuple(max(d, 1) for d in shape)
    while int(np.prod(shape)) > max_elements:  # keep samples small: shrink the largest dim
        largest = int(np.argmax(shape))
        shape = shape[:largest] + (max(1, shape[largest] // 2),) + shape[largest + 1 :]
    return shape


def write_graph_dumps(
    fusion_map: FusionMap,
    folder: Path,
    *,
    seed: int = 0,
    noise: float = 1e-3,
    faulty_op: Optional[str] = None,
    max_elements: int = 1 << 16,
) -> GraphDumps:
    """Write ``folder/golden`` and ``folder/npu`` for `fusion_map`; `faulty_op`'s outputs get a
    large error instead of `noise`."""
    rng = np.random.default_rng(seed)
    golden_dir, npu_dir = folder / "golden", folder / "npu"
    golden_dir.mkdir(parents=True, exist_ok=True)
    npu_dir.mkdir(parents=True, exist_ok=True)
    golden: Dict[Tuple[str, int], np.ndarray] = {}

    def golden_of(desc: OutputDesc, position: int) -> Optional[np.ndarray]:
        if not desc.origin_name:
            return None
        key = (desc.origin_name, desc.origin_output_index if desc.origin_output_index is not None else position)
        if key not in golden:
            golden[key] = rng.standard_normal(_shape(desc, max_elements)).astype(np.float32)
            save_npy(golden_dir / golden_file_name(key[0], key[1], TIMESTAMP), golden[key])
        return golden[key]

    def device(value: np.ndarray, error: float) -> Tensor:
        noisy = (value * (1 + error * rng.standard_normal(value.shape))).astype(np.float32)
        return Tensor(noisy, layout="NC1HWC0" if noisy.ndim == 4 else "ND", dtype="float16")

    def output_value(op: Op, position: int) -> np.ndarray:
        # Cast and TransData change dtype or layout, not values: they pass their input through.
        if op.type in PASS_THROUGH_TYPES and position < len(op.inputs):
            producer = fusion_map.get(op.inputs[position].producer)
            if producer is not None and producer.output_descs:
                return output_value(producer, op.inputs[position].index)
        desc = op.output_descs[min(position, len(op.output_descs) - 1)]
        value = golden_of(desc, position)
        return value if value is not None else rng.standard_normal(_shape(desc, max_elements)).astype(np.float32)

    dumped = 0
    for task, op in enumerate(fusion_map.ops, start=1):
        for position, desc in enumerate(op.output_descs):
            golden_of(desc, position)
        if op.type in NOT_DUMPED or not op.output_descs:
            continue
        error = 0.5 if op.name == faulty_op else noise
        inputs = []
        for ref in op.inputs:
            producer = fusion_map.get(ref.producer)
            if producer is not None and producer.output_descs:
                inputs.append(device(output_value(producer, ref.index), noise))
        outputs = [device(output_value(op, k), error) for k in range(len(op.output_descs))]
        write_dump(npu_dir / device_file_name(op.type, op.name, task, 1, TIMESTAMP + task), op.name,
                   inputs=inputs, outputs=outputs)
        dumped += 1
    return GraphDumps(npu_dir, golden_dir, dumped, len(golden))

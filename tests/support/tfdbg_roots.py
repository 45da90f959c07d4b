"""tfdbg roots of the demo network for the golden-side tests: the golden .npy folder a dump tree
holds, re-written as tfdbg v1 (an initialiser run, then one run per step) and v2 (one execution per
step), op names with their ``/`` as the framework had them."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, Sequence, Tuple

import numpy as np

from opdiff.conventions.dump_names import parse_golden_name
from opdiff.dumps.tfdbg.writer import write_v1_run, write_v2_root
from tests.support.dump_tree import DumpTree


def golden_tensors(tree: DumpTree) -> Dict[Tuple[str, int], np.ndarray]:
    """(framework op name, output) -> value of each golden .npy of `tree`."""
    by_file_name = {member.replace("/", "_"): member for members in tree.npu_ops.values() for member in members}
    found: Dict[Tuple[str, int], np.ndarray] = {}
    for path in sorted(tree.golden.iterdir()):
        name = parse_golden_name(path)
        assert name is not None
        found[(by_file_name.get(name.op_name, name.op_name), name.output_index)] = np.load(path)
    return found


def write_tfdbg_roots(tree: DumpTree, base: Path, scales: Sequence[float] = (1.0, 1.0)) -> Tuple[Path, Path]:
    """v1 and v2 roots under `base` whose step k holds the golden tensors times ``scales[k]``."""
    tensors = golden_tensors(tree)
    steps = [{key: (value * scale).astype(value.dtype) for key, value in tensors.items()} for scale in scales]
    v1 = base / "tfdbg_v1"
    write_v1_run(v1, 0, {("init", 0): np.zeros(1, np.float32)}, ["init"])
    for number, step in enumerate(steps):
        write_v1_run(v1, number + 1, step, ["train"])
    return v1, write_v2_root(base / "tfdbg_v2", steps)

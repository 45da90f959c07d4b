"""Checking opdiff's tfdbg readers against what TensorFlow's own readers gave (the expected.npz a
tfdbg_training run records): every tensor, bit for bit, in dtype and shape too."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np

from opdiff.dumps.tfdbg.roots import read_tensor, read_tfdbg_root
from opdiff.dumps.tfdbg.tensors import TensorSkipped


def read_all(root: Path) -> Tuple[Dict[str, np.ndarray], List[str]]:
    """Every tensor opdiff reads under `root`, keyed as expected.npz keys it, and those it skipped."""
    dump = read_tfdbg_root(root)
    found: Dict[str, np.ndarray] = {}
    skipped: List[str] = []
    occurrences: Dict[str, int] = {}
    for run in dump.runs:
        for ref in run.tensors:
            name = f"{ref.dumped_name or ref.op_name}|{ref.output_slot}"
            if dump.version == 1:
                key = f"{run.number}|{name}|{ref.timestamp}"
            else:
                occurrence = occurrences.get(name, 0)
                occurrences[name] = occurrence + 1
                key = f"{occurrence}|{name}"
            try:
                found[key] = read_tensor(ref)
            except TensorSkipped:
                skipped.append(key)
    return found, skipped


def differences(root: Path, expected: Dict[str, np.ndarray]) -> List[str]:
    """What differs between opdiff's tensors and the expected ones (empty when all agree)."""
    found, _skipped = read_all(root)
    problems = [f"{key}: TensorFlow gave it, opdiff did not" for key in sorted(set(expected) - set(found))]
    problems += [f"{key}: opdiff read it, TensorFlow did not" for key in sorted(set(found) - set(expected))]
    for key in sorted(set(found) & set(expected)):
        mine, theirs = found[key], np.asarray(expected[key])
        if mine.dtype != theirs.dtype or mine.shape != theirs.shape or mine.tobytes() != theirs.tobytes():
            problems.append(f"{key}: {mine.dtype}{list(mine.shape)} differs from {theirs.dtype}{list(theirs.shape)}")
    return problems

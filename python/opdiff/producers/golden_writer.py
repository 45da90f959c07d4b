"""Writing a run's tensors as golden ``.npy`` files, one per op output and one per model input.

A model input ``x`` is written as ``{escaped x}.0.{ts}.npy``: the output of a ``Data`` op called
``x`` (the fusion rules opdiff writes name their Data ops so), which is how the compare engine finds
the golden of an input. Node output ``k`` of node ``n`` is ``{escaped n}.{k}.{ts}.npy``, ``k`` the
output's position in the node (empty optional outputs keep their position).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Mapping, Tuple

import numpy as np

from opdiff.conventions.dump_names import golden_file_name
from opdiff.dumps.writer import save_npy
from opdiff.producers.file_names import FolderNames


@dataclass(frozen=True)
class TensorOrigin:
    """Where a tensor of a model comes from: output `index` of op `op` (a node, or the Data op of an input)."""

    op: str
    index: int


@dataclass(frozen=True)
class GoldenFile:
    """One written golden file: the tensor, its origin and the path."""

    tensor: str
    origin: TensorOrigin
    path: Path


def write_golden(folder: Path, tensors: Mapping[str, np.ndarray], origins: Mapping[str, TensorOrigin], timestamp: int) -> Tuple[List[GoldenFile], List[str]]:
    """Write every tensor that has an origin as a golden file in `folder`; returns the files and
    notes on tensors that could not be written (object or string arrays)."""
    folder.mkdir(parents=True, exist_ok=True)
    names = FolderNames(folder, timestamp)
    written: List[GoldenFile] = []
    notes: List[str] = []
    for tensor, array in tensors.items():
        origin = origins.get(tensor)
        if origin is None:
            continue
        if array.dtype.kind in "OSU":
            notes.append(f"tensor {tensor}: {array.dtype} values are not written")
            continue
        target = names.path_for(golden_file_name(origin.op, origin.index, timestamp))
        # save_npy writes the file whole or not at all; np.ascontiguousarray would make a scalar 1-D
        save_npy(target, np.require(array, requirements='C'))
        written.append(GoldenFile(tensor, origin, target))
    names.write_mapping()
    return written, notes

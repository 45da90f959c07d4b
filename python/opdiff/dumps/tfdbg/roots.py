"""A tfdbg dump root of either version: recognising one, reading its runs, reading one tensor."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Union

import numpy as np

from opdiff.dumps.tfdbg.model import TensorRef, TfdbgRoot
from opdiff.dumps.tfdbg.v1 import is_v1_root, read_v1_root, read_v1_tensor
from opdiff.dumps.tfdbg.v2 import is_v2_root, read_v2_root, read_v2_tensor

PathLike = Union[str, "os.PathLike[str]"]


def tfdbg_version(path: PathLike) -> int:
    """1 or 2 for a tfdbg dump root, 0 for any other path.

    >>> tfdbg_version("/")
    0
    """
    folder = Path(path)
    if not folder.is_dir():
        return 0
    if is_v2_root(folder):
        return 2
    return 1 if is_v1_root(folder) else 0


def read_tfdbg_root(path: PathLike) -> TfdbgRoot:
    """The runs of the tfdbg root at `path`; ValueError when it is none."""
    version = tfdbg_version(path)
    if version == 0:
        raise ValueError(f"{path}: not a tfdbg dump root (no run_* folders, _tfdbg_* files or *.metadata)")
    return read_v2_root(Path(path)) if version == 2 else read_v1_root(Path(path))


def read_tensor(ref: TensorRef) -> np.ndarray:
    """One tensor's array (TensorDamaged, TensorSkipped or OSError saying why not)."""
    return read_v2_tensor(ref) if ref.offset >= 0 else read_v1_tensor(ref)

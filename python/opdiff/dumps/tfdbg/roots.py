"""A tfdbg dump root of either version: reading its runs, reading one tensor (detect.py tells one)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Union

import numpy as np

from opdiff.dumps.tfdbg.detect import tfdbg_version
from opdiff.dumps.tfdbg.model import TensorRef, TfdbgRoot
from opdiff.dumps.tfdbg.v1 import read_v1_root, read_v1_tensor
from opdiff.dumps.tfdbg.v2 import read_v2_root, read_v2_tensor

PathLike = Union[str, "os.PathLike[str]"]


def read_tfdbg_root(path: PathLike) -> TfdbgRoot:
    """The runs of the tfdbg root at `path`; ValueError when it is none."""
    version = tfdbg_version(path)
    if version == 0:
        raise ValueError(f"{path}: not a tfdbg dump root (no run_* folders, _tfdbg_* files or *.metadata)")
    return read_v2_root(Path(path)) if version == 2 else read_v1_root(Path(path))


def read_tensor(ref: TensorRef) -> np.ndarray:
    """One tensor's array (TensorDamaged, TensorSkipped or OSError saying why not)."""
    return read_v2_tensor(ref) if ref.offset >= 0 else read_v1_tensor(ref)

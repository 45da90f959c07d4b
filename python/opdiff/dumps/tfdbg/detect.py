"""Whether a folder is a tfdbg dump root, from its names alone: imports nothing heavy, so that a
comparison of other dumps (which loads neither numpy nor protobuf) can ask.

>>> tfdbg_version("/")
0
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Union

from opdiff.dumps.discovery import TFDBG_SOURCE_FILE, TFDBG_UNREADABLE_FILE

PathLike = Union[str, "os.PathLike[str]"]
RUN_FOLDER = re.compile(r"^run_(\d+)_(\d+)$")
METADATA_SUFFIX = ".metadata"


def is_v1_root(path: Path) -> bool:
    """A folder of ``run_*`` folders, a run folder, or a folder holding ``_tfdbg_*`` entries."""
    try:
        names = os.listdir(path)
    except OSError:
        return False
    if any(name.startswith("_tfdbg_") for name in names):
        return True
    return any(RUN_FOLDER.match(name) and (path / name).is_dir() for name in names)


def is_v2_root(path: Path) -> bool:
    """A folder holding a ``*.metadata`` stream."""
    try:
        return any(name.endswith(METADATA_SUFFIX) for name in os.listdir(path))
    except OSError:
        return False


def tfdbg_version(path: PathLike) -> int:
    """1 or 2 for a tfdbg dump root, 0 for any other path."""
    folder = Path(path)
    if not folder.is_dir():
        return 0
    if is_v2_root(folder):
        return 2
    return 1 if is_v1_root(folder) else 0


def is_pending_export(folder: PathLike) -> bool:
    """A golden cache folder a plan named (dumps/tfdbg/golden.py) whose export is not done yet."""
    return (Path(folder) / TFDBG_SOURCE_FILE).is_file() and not (Path(folder) / TFDBG_UNREADABLE_FILE).is_file()

"""Whether a folder is a tfdbg dump root, from its names alone: imports nothing heavy, so that a
comparison of other dumps (which loads neither numpy nor protobuf) can ask.

>>> tfdbg_version("/")
0
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Optional, Union

from opdiff.dumps.discovery import TFDBG_SOURCE_FILE, TFDBG_UNREADABLE_FILE

PathLike = Union[str, "os.PathLike[str]"]
RUN_FOLDER = re.compile(r"^run_(\d+)_(\d+)$")
METADATA_SUFFIX = ".metadata"


# A folder's entry names, each after a NUL (which no name holds): each test below is one substring
# scan in C, which matters beside a folder of 100,000 dumps that is no tfdbg root at all. Names
# starting "run_" are then held to RUN_FOLDER one by one.
_RUN_PREFIXED = re.compile(r"\0(run_[^\0]*)")


def _joined_names(path: Path) -> Optional[str]:
    try:
        return "".join("\0" + name for name in os.listdir(path)) + "\0"
    except OSError:
        return None


def is_v1_root(path: Path, names: Optional[str] = None) -> bool:
    """A folder of ``run_*`` folders, a run folder, or a folder holding ``_tfdbg_*`` entries
    (`names`: its entries as _joined_names gives them, when the caller listed them already)."""
    names = _joined_names(path) if names is None else names
    if names is None:
        return False
    if "\0_tfdbg_" in names:
        return True
    return any(RUN_FOLDER.match(name) and (path / name).is_dir() for name in _RUN_PREFIXED.findall(names))


def is_v2_root(path: Path, names: Optional[str] = None) -> bool:
    """A folder holding a ``*.metadata`` stream."""
    names = _joined_names(path) if names is None else names
    return names is not None and METADATA_SUFFIX + "\0" in names


def tfdbg_version(path: PathLike) -> int:
    """1 or 2 for a tfdbg dump root, 0 for any other path."""
    folder = Path(path)
    names = _joined_names(folder) if folder.is_dir() else None
    if names is None:
        return 0
    if is_v2_root(folder, names):
        return 2
    return 1 if is_v1_root(folder, names) else 0


def is_pending_export(folder: PathLike) -> bool:
    """A golden cache folder a plan named (dumps/tfdbg/golden.py) whose export is not done yet."""
    return (Path(folder) / TFDBG_SOURCE_FILE).is_file() and not (Path(folder) / TFDBG_UNREADABLE_FILE).is_file()

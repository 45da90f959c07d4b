"""Where a producer writes its tensor files (names from opdiff.conventions.dump_names), one timestamp
source, and the ``mapping.csv`` for names too long for a file system.

A name over 255 bytes is written as ``{timestamp}{k}`` (``.npy`` for golden files) and its real
name recorded in the folder's ``mapping.csv``, which discovery reads back.
"""

from __future__ import annotations

import csv
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Tuple

from opdiff.fileio.atomic import replacing

# Characters a dump or golden file name keeps (escape_op_name turns . / \ and space into _).
_UNSAFE = re.compile(r"[^A-Za-z0-9_./\\ -]")


def file_safe_name(name: str) -> str:
    """`name` with every character a dump file name cannot hold replaced by ``_``.

    >>> file_safe_name("onnx::Conv_12"), file_safe_name("layer1/conv.0")
    ('onnx__Conv_12', 'layer1/conv.0')
    """
    return _UNSAFE.sub("_", name)


MAX_FILE_NAME = 255


def timestamp_now() -> int:
    """Microseconds since the epoch: the 16-digit timestamp dump and golden names carry."""
    return time.time_ns() // 1000


@dataclass
class FolderNames:
    """Hands out file names in one folder, hashing the over-long ones (recorded for ``mapping.csv``)."""

    folder: Path
    timestamp: int
    hashed: List[Tuple[str, str]] = field(default_factory=list)

    def path_for(self, real_name: str) -> Path:
        """Where the file called `real_name` goes (a digits-only name when it is too long)."""
        if len(real_name.encode()) <= MAX_FILE_NAME:
            return self.folder / real_name
        hashed = f"{self.timestamp}{len(self.hashed)}" + (".npy" if real_name.endswith(".npy") else "")
        self.hashed.append((hashed, real_name))
        return self.folder / hashed

    def write_mapping(self) -> None:
        """Write ``mapping.csv`` (``hashed_name,original_name``) when some name was hashed."""
        if not self.hashed:
            return
        with replacing(self.folder / "mapping.csv") as temporary:
            with open(temporary, "w", newline="", encoding="utf-8") as handle:
                csv.writer(handle).writerows(self.hashed)

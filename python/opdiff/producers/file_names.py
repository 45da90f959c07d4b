"""Names of the tensor files a producer writes (docs/reference/reference-tool.md §2.1-2.2), one timestamp
source, and the ``mapping.csv`` for names too long for a file system.

Golden: ``{escaped op}.{output index}.{timestamp}.npy``. Device: ``{op_type}.{escaped op}.{task}.{stream}.{timestamp}``.
A name over 255 bytes is written as ``{timestamp}{k}`` (``.npy`` for golden files) and its real
name recorded in the folder's ``mapping.csv``, which discovery reads back.
"""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Tuple

from opdiff.dumps.discovery import escape_op_name
from opdiff.fileio.atomic import replacing

MAX_FILE_NAME = 255


def timestamp_now() -> int:
    """Microseconds since the epoch: the 16-digit timestamp dump and golden names carry."""
    return time.time_ns() // 1000


def golden_file_name(op_name: str, output_index: int, timestamp: int) -> str:
    """The golden file of output `output_index` of op `op_name`.

    >>> golden_file_name("conv1/Relu", 0, 1700000000000001)
    'conv1_Relu.0.1700000000000001.npy'
    """
    return f"{escape_op_name(op_name)}.{output_index}.{timestamp}.npy"


def device_file_name(op_type: str, op_name: str, task_id: int, stream_id: int, timestamp: int) -> str:
    """The device dump file of one op run.

    >>> device_file_name("Conv", "res2/conv.0", 3, 0, 1700000000000001)
    'Conv.res2_conv_0.3.0.1700000000000001'
    """
    return f"{escape_op_name(op_type)}.{escape_op_name(op_name)}.{task_id}.{stream_id}.{timestamp}"


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

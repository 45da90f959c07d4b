"""Files dropped from the page cache, so that a test or a benchmark reads them cold."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence


def drop_from_cache(paths: Sequence[Path]) -> None:
    """Ask the kernel to drop the files' pages (posix_fadvise DONTNEED, no root needed). Dirty pages
    cannot be dropped: each file is written back first (fsync)."""
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)

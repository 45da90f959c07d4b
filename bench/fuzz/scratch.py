"""One private folder per fuzzing process for the files the checks write (readers take paths)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Optional


class Scratch:
    """The process's scratch folder, made on first use."""

    _folder: Optional[Path] = None

    @classmethod
    def path(cls, name: str) -> Path:
        if cls._folder is None:
            cls._folder = Path(tempfile.mkdtemp(prefix="opdiff-fuzz-"))
        return cls._folder / name

    @classmethod
    def write(cls, name: str, data: bytes) -> Path:
        path = cls.path(name)
        path.write_bytes(data)
        return path

    @classmethod
    def fresh(cls, name: str) -> Path:
        """An empty sub-folder `name` (emptied if an earlier input left files there)."""
        path = cls.path(name)
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        return path

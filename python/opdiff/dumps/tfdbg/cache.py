"""Where a tfdbg root's steps are exported as golden .npy files (``OPDIFF_TFDBG_CACHE``, default a
folder of the system's temporary one), and which root an exported step folder stands for. Kept
apart from the export itself (golden.py) so a cluster worker can check a folder without loading
numpy or protobuf."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Optional

from opdiff.dumps.discovery import TFDBG_SOURCE_FILE

CACHE_ENV = "OPDIFF_TFDBG_CACHE"


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path(tempfile.gettempdir()) / f"opdiff-tfdbg-{os.getuid()}")


def exported_from(folder: str) -> Optional[str]:
    """The tfdbg root that `folder` holds an exported step of, when it is a step folder of this
    process's cache (it names its root in ``tfdbg_source.json``); else None. A worker serves such a
    folder when it serves that root: opdiff wrote it there from the root's own files.

    >>> exported_from(tempfile.gettempdir()) is None
    True
    """
    real = os.path.realpath(folder)
    cache = os.path.realpath(cache_root())
    if not real.startswith(cache.rstrip(os.sep) + os.sep):
        return None
    try:
        source = json.loads(Path(real, TFDBG_SOURCE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    root = source.get("root") if isinstance(source, dict) else None
    return root if isinstance(root, str) else None


__all__ = ["CACHE_ENV", "cache_root", "exported_from"]

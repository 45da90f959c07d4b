"""What every black-box cross-check script shares: its flags (--reference-venv, --keep), the reference
located (its dump parser built if missing), a work folder removed afterwards unless kept."""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path
from typing import Callable

from rich.console import Console

from side_by_side.reference import DEFAULT_VENV, ReferenceTool

# (the reference, the work folder, a console) -> the exit code
Check = Callable[[ReferenceTool, Path, Console], int]


def crosscheck_main(doc: str, prefix: str, check: Check) -> int:
    """Parse the flags, run `check` in a work folder named `prefix`..., return its exit code."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference-venv", type=Path, default=DEFAULT_VENV, help="virtual environment with mindstudio-probe")
    parser.add_argument("--keep", type=Path, help="write cases and results here and keep them (default: a temporary folder)")
    args = parser.parse_args()
    tool = ReferenceTool.locate(args.reference_venv)
    root = args.keep or Path(tempfile.mkdtemp(prefix=prefix))
    try:
        return check(tool, root, Console(width=200))
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)

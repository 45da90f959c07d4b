#!/usr/bin/env python3
"""A virtual environment with the oldest (or newest) onnx and onnxruntime that pyproject admits,
and the running interpreter's opdiff copied into it; prints that environment's python.

    python tools/onnx_env.py oldest                      # onnx==1.15, onnxruntime==1.17, numpy<2
    python tools/onnx_env.py newest --extra onnxconverter-common==1.16.0

The versions come from pyproject's ``onnx`` extra (``onnx>=1.15``: oldest = 1.15). numpy stays
below 2 for the oldest pair: their wheels were built against numpy 1. The environment is built
once per requirement set, under the system's temporary folder (or --dir), and reused; opdiff (its
Python package and compiled core, from the interpreter running this script) is copied in afresh
on every call, so that an edited or rebuilt opdiff is the one that runs. Exit status 3 with pip's
last words when the environment cannot be built (offline, no wheels for this Python).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path
from typing import List

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
EXIT_CANNOT_BUILD = 3


def _extra(name: str) -> List[str]:
    """The requirement strings of pyproject's optional-dependency `name` (one line: ``name = [...]``)."""
    match = re.search(rf"^{re.escape(name)} = \[(.*)\]", PYPROJECT.read_text(encoding="utf-8"), re.MULTILINE)
    if match is None:
        raise SystemExit(f"{PYPROJECT}: no optional dependency {name!r}")
    return re.findall(r'"([^"]+)"', match.group(1))


def _dependencies() -> List[str]:
    """opdiff's own requirements (pyproject's ``dependencies = [...]`` block)."""
    block = re.search(r"^dependencies = \[(.*?)^\]", PYPROJECT.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL)
    if block is None:
        raise SystemExit(f"{PYPROJECT}: no dependencies list")
    return re.findall(r'^\s*"([^"]+)"', block.group(1), re.MULTILINE)


def requirements(which: str, extras: List[str]) -> List[str]:
    """What pip installs: opdiff's dependencies, onnx and onnxruntime pinned to their lower bounds
    (oldest) or left free (newest), and `extras`."""
    onnx = _extra("onnx")
    if which == "oldest":
        onnx = [re.sub(r">=", "==", requirement) for requirement in onnx] + ["numpy<2"]
    return _dependencies() + onnx + extras


def environment_folder(kind: str, wanted: List[str], base: Path) -> Path:
    """Where the environment of `kind` (``onnx-oldest``, ``tf``, ...) holding `wanted` is kept: one
    folder per Python version and requirement set."""
    key = hashlib.sha256(json.dumps([sys.version, wanted]).encode()).hexdigest()[:10]
    return base / f"opdiff-{kind}-py{sys.version_info[0]}{sys.version_info[1]}-{key}"


def build(folder: Path, wanted: List[str]) -> Path:
    """The environment's python, building the environment first when it is missing or unfinished."""
    python = folder / "bin" / "python"
    ready = folder / "ready.json"
    if not ready.is_file():
        shutil.rmtree(folder, ignore_errors=True)
        venv.EnvBuilder(with_pip=True).create(folder)
        done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *wanted],
                              capture_output=True, text=True)
        if done.returncode != 0:
            sys.stderr.write(f"could not build {folder} ({' '.join(wanted)}):\n{done.stderr[-2000:]}")
            raise SystemExit(EXIT_CANNOT_BUILD)
        ready.write_text(json.dumps(wanted), encoding="utf-8")
    return python


def copy_opdiff(python: Path) -> None:
    """The running opdiff (package and compiled core) into the environment's site-packages, and its
    ``opdiff`` command into the environment's bin/."""
    import opdiff
    import opdiff._core

    site = Path(subprocess.check_output([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True).strip())
    target = site / "opdiff"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(Path(opdiff.__file__).parent, target, ignore=shutil.ignore_patterns("__pycache__"))
    core = Path(opdiff._core.__file__)
    if not (target / core.name).exists():  # an editable install keeps the core in its build folder
        shutil.copy2(core, target / core.name)
    # the `opdiff` command, as pip would write it: documented commands call it by name
    script = python.parent / "opdiff"
    script.write_text(f"#!{python}\nimport sys\nfrom opdiff.cli import entry\nsys.exit(entry())\n", encoding="utf-8")
    script.chmod(0o755)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("which", choices=("oldest", "newest"))
    parser.add_argument("--extra", action="append", default=[], metavar="REQUIREMENT", help="another package to install (repeatable)")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()), help="where environments are kept (default: the temporary folder)")
    args = parser.parse_args()
    wanted = requirements(args.which, args.extra)
    python = build(environment_folder(f"onnx-{args.which}", wanted, args.dir), wanted)
    copy_opdiff(python)
    print(python)
    return 0


if __name__ == "__main__":
    sys.exit(main())

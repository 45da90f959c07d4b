"""A tfdbg root as the golden side of a comparison (``-g ROOT``): each step is exported once to a
folder of golden ``.npy`` files in a cache, which discovery then indexes as any golden folder, so
matching and fusion rules work unchanged and the core reads plain .npy files.

Why a cache of .npy files: the core opens golden tensors by path as .npy (or dump) files; tfdbg
keeps a tensor inside a protobuf (v1: one Event per file; v2: a record in a stream), so decoding
it to a .npy once, a tensor at a time, keeps memory flat and leaves the core unchanged. The cost
is disk: one step's tensors. The folder is keyed by the root, the step and the size and time of
its source files, so a changed dump is exported afresh; ``OPDIFF_TFDBG_CACHE`` names where it
lives (default: the system's temporary folder).

A cache folder holds ``tfdbg_source.json`` (the root and step it is of) from when a plan names it,
and ``tfdbg_unreadable.json`` (golden key -> why) once its export is complete: discovery reads the
latter so a damaged tensor's row says which file and why."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import List, Optional, Tuple

from opdiff.dumps.discovery import TFDBG_SOURCE_FILE as SOURCE_FILE
from opdiff.dumps.discovery import TFDBG_UNREADABLE_FILE as UNREADABLE_FILE
from opdiff.dumps.tfdbg.cache import cache_root
from opdiff.dumps.tfdbg.detect import is_pending_export
from opdiff.dumps.tfdbg.export import export_run
from opdiff.dumps.tfdbg.model import Run, TfdbgRoot
from opdiff.dumps.tfdbg.roots import read_tfdbg_root
from opdiff.fileio.atomic import write_text


def _fingerprint(root: TfdbgRoot, run: Run) -> str:
    digest = hashlib.sha256(f"{os.path.abspath(root.path)}|{root.version}|{run.number}|{run.step}".encode())
    for path in sorted({ref.path for ref in run.tensors}):
        try:
            stat = os.stat(path)
        except OSError:
            continue
        digest.update(f"|{path}|{stat.st_size}|{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:24]


def step_folder(root: TfdbgRoot, run: Run) -> Path:
    """The cache folder of `run`'s golden files, created holding its source note (not exported yet)."""
    folder = cache_root() / f"{root.path.name or 'root'}-{_fingerprint(root, run)}" / f"step_{run.step}"
    if not (folder / SOURCE_FILE).is_file():
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_text(folder / SOURCE_FILE, json.dumps({"root": os.path.abspath(root.path), "step": run.step}))
    return folder


def golden_step_folders(root: TfdbgRoot) -> List[Tuple[int, Path]]:
    """(step, cache folder) for each step of `root`: named, exported only when compared."""
    return [(run.step, step_folder(root, run)) for run in root.steps if run.step is not None]


def golden_folder(path: Path, step: Optional[int]) -> Path:
    """The exported golden folder of step `step` (default: the last) of the tfdbg root `path`."""
    root = read_tfdbg_root(path)
    run = root.step(step)
    return prepare(step_folder(root, run), root, run)


def prepare(folder: Path, root: Optional[TfdbgRoot] = None, run: Optional[Run] = None) -> Path:
    """Export a cache folder named by a plan, unless done; `folder` as it was when it is none."""
    if not is_pending_export(folder):
        return folder
    if root is None or run is None:
        source = json.loads((folder / SOURCE_FILE).read_text())
        root = read_tfdbg_root(source["root"])
        run = root.step(int(source["step"]))
    done = export_run(run, folder)
    unreadable = {key: {"source": source, "why": why} for key, (source, why) in done.unreadable.items()}
    # what could not be indexed at all (an unnamed file, a stream cut short) has no golden key
    for number, (source, why) in enumerate(root.problems + run.problems):
        unreadable[f"?{number}"] = {"source": source, "why": why}
    write_text(folder / UNREADABLE_FILE, json.dumps(unreadable, indent=1, sort_keys=True))
    return folder

"""What every producer writes beside its tensors: the inputs it ran with (for ``--input`` in the
device run) and ``manifest.json``, one form for dump-onnx and dump-tf."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from opdiff.dumps.writer import save_npy
from opdiff.fileio.atomic import write_text
from opdiff.producers.file_names import file_safe_name


def input_file_name(input_name: str) -> str:
    """The file of one input under ``DIR/inputs/``.

    >>> input_file_name("images/batch:0")
    'images_batch_0.npy'
    """
    return f"{file_safe_name(input_name).replace('/', '_')}.npy"


def save_inputs(folder: Path, feeds: Mapping[str, np.ndarray]) -> None:
    """Write each input as ``folder/{input_file_name}``."""
    folder.mkdir(parents=True, exist_ok=True)
    for input_name, array in feeds.items():
        save_npy(folder / input_file_name(input_name), np.asarray(array))


def write_manifest(target: Path, *, model: str, kind: str, tensors: Path, files: int, fusion_rule: Optional[Path], timestamp: int,
                   ops: int, mapped_share: Optional[float], options: Mapping[str, Any], seconds: Mapping[str, float],
                   notes: Sequence[str], **extra: Any) -> Path:
    """Write ``manifest.json``: what ran (model, kind, options), what was written (tensor folder,
    file count, fusion rule), when (the run's timestamp), how long each step took, the notes, and
    the producer's own lists (`extra`, e.g. dump-tf's random ops and tensors it could not fetch)."""
    document = {
        "model": model,
        "kind": kind,
        "tensors": os.fspath(tensors),
        "files": files,
        "fusion_rule": os.fspath(fusion_rule) if fusion_rule else None,
        "timestamp": timestamp,
        "ops": ops,
        "mapped_share": mapped_share,
        "options": dict(options),
        "seconds": dict(seconds),
        "notes": list(notes),
        **extra,
    }
    return write_text(target, json.dumps(document, indent=2, default=str))

"""The light versions of real networks shipped with the onnx package (onnx/backend/test/data/light):
real graph structure, weights built as constants (use :func:`randomize_weights` for meaningful ones)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List

from opdiff.producers.onnx.support import OnnxModel

_PREFIX = "light_"


def light_models_folder() -> Path:
    """The folder of the installed onnx package holding the light models."""
    import onnx

    return Path(os.path.dirname(onnx.__file__)) / "backend" / "test" / "data" / "light"


def light_model_names() -> List[str]:
    """Names of the light models present (``resnet50``, ``squeezenet``, ...), sorted.

    >>> all(name == name.strip() and not name.startswith("light_") for name in light_model_names())
    True
    """
    folder = light_models_folder()
    if not folder.is_dir():
        return []
    return sorted(p.stem[len(_PREFIX):] for p in folder.glob(f"{_PREFIX}*.onnx"))


def light_model_path(name: str) -> Path:
    """The file of light model `name` (with or without the ``light_`` prefix); FileNotFoundError
    listing the available ones."""
    stem = name if name.startswith(_PREFIX) else _PREFIX + name
    path = light_models_folder() / f"{stem}.onnx"
    if not path.is_file():
        raise FileNotFoundError(f"no light model {name!r}; available: {', '.join(light_model_names())}")
    return path


def load_light_model(name: str) -> OnnxModel:
    """Light model `name` as a ModelProto."""
    import onnx

    return onnx.load(os.fspath(light_model_path(name)))

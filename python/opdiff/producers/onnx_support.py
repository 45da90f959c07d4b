"""The optional ONNX dependencies: one place that imports them and says what to install when missing."""

from __future__ import annotations

from types import ModuleType
from typing import Tuple

INSTALL_HINT = 'pip install "opdiff[onnx]"  (onnx>=1.15 and onnxruntime>=1.17)'


class MissingOnnxError(ImportError):
    """onnx or onnxruntime is not installed; the message says how to install them."""


def require_onnx() -> Tuple[ModuleType, ModuleType]:
    """``(onnx, onnxruntime)``, or MissingOnnxError naming what is missing.

    >>> onnx, ort = require_onnx()  # doctest: +SKIP
    """
    missing = []
    try:
        import onnx
    except ImportError:
        missing.append("onnx")
    try:
        import onnxruntime
    except ImportError:
        missing.append("onnxruntime")
    if missing:
        raise MissingOnnxError(f"{' and '.join(missing)} not installed; install with: {INSTALL_HINT}")
    return onnx, onnxruntime


def onnx_available() -> bool:
    """True when both onnx and onnxruntime import."""
    try:
        require_onnx()
    except MissingOnnxError:
        return False
    return True

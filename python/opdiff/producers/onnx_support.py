"""The optional ONNX dependencies: one place that imports them and says what to install when missing."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Tuple

# The ONNX objects that cross this package's functions. onnx is an optional extra, imported inside
# functions only, so these are Any: the check then reads the same with or without onnx (and with any
# supported version of it) installed, and onnxruntime ships no type information at all.
OnnxModel = Any  # onnx.ModelProto
OnnxGraph = Any  # onnx.GraphProto
OnnxNode = Any  # onnx.NodeProto
OnnxTensor = Any  # onnx.TensorProto (an initializer, or a node's tensor attribute)
OrtSessionOptions = Any  # onnxruntime.SessionOptions
OrtOptimizationLevel = Any  # onnxruntime.GraphOptimizationLevel

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

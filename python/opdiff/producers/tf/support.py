"""The optional TensorFlow dependency: one place that imports it and says what to install when missing."""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

# TensorFlow objects that cross this package's functions. tensorflow is an optional extra, imported
# inside functions only, so these are Any: the check reads the same with or without it installed.
TfGraphDef = Any  # tf.compat.v1.GraphDef
TfGraph = Any  # tf.Graph

INSTALL_HINT = 'pip install "opdiff[tf]"  (tensorflow-cpu>=2.21)'


class MissingTensorFlowError(ImportError):
    """tensorflow is not installed; the message says how to install it."""


def require_tensorflow() -> ModuleType:
    """The ``tensorflow`` module, or MissingTensorFlowError with the install hint.

    TensorFlow's C++ start-up notes (oneDNN, CPU features) are silenced unless the caller chose a
    log level: they are not about the run, and they would bury a command's own output.

    >>> tf = require_tensorflow()  # doctest: +SKIP
    """
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    try:
        import tensorflow
    except ImportError:
        raise MissingTensorFlowError(f"tensorflow not installed; install with: {INSTALL_HINT}") from None
    module: ModuleType = tensorflow
    return module

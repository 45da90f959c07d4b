"""TensorFlow for the tests marked ``tf``: skipped where it is not installed (the main suite), required
where ``OPDIFF_REQUIRE_TF=1`` (.ci/run's run in the venv tools/tf_env.py builds), so that a broken
TensorFlow there fails the run instead of skipping every test."""

from __future__ import annotations

import os
from types import ModuleType

import pytest

REQUIRED = os.environ.get("OPDIFF_REQUIRE_TF") == "1"


def tensorflow_or_skip() -> ModuleType:
    """The tensorflow module; the calling test module is skipped without it, unless it is required."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's C++ start-up notes
    if REQUIRED:
        import tensorflow

        return tensorflow
    return pytest.importorskip("tensorflow", reason="tensorflow is not installed: the tf tests run in the venv tools/tf_env.py builds")

"""tfdbg dumps TensorFlow writes now (the venv's version): small training graphs (conv, batch norm,
dense, dropout, a tf.cond, softmax cross-entropy; SGD and Adam) dumped by tfdbg v1 and v2, and every
tensor opdiff reads equal, bit for bit, to what DebugDumpDir and DebugDataReader give."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.support.tf_required import tensorflow_or_skip

tf = tensorflow_or_skip()
pytestmark = pytest.mark.tf

from opdiff.dumps.tfdbg.roots import read_tfdbg_root  # noqa: E402
from tests.support.child_env import with_checkout_on_path  # noqa: E402
from tests.support.paths import ROOT  # noqa: E402
from tests.support.tfdbg_expected import differences  # noqa: E402


@pytest.mark.parametrize("kind", ["v1_sgd", "v1_adam", "v2_sgd"])
def test_every_tensor_equals_tensorflows_own_reader(tmp_path: Path, kind: str) -> None:
    # each dump in its own process: v1 runs in graph mode, v2 needs eager execution
    env = {**with_checkout_on_path(str(ROOT)), "TF_CPP_MIN_LOG_LEVEL": "2"}
    done = subprocess.run([sys.executable, "-m", "tests.support.tfdbg_training", str(tmp_path), kind], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    with np.load(tmp_path / f"{kind}.expected.npz") as expected:
        assert len(expected.files) > 100
        assert differences(tmp_path / kind, dict(expected)) == []
    root = read_tfdbg_root(tmp_path / kind)
    ops = {ref.op_name for ref in root.step(None).tensors}
    assert len(root.steps) == 2
    assert any(op.startswith(("gradients/", "gradient_tape/")) for op in ops)  # the backward pass
    if kind == "v1_adam":
        assert any("Adam" in op or "adam" in op.lower() for op in ops)

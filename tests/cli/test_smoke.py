import subprocess
import sys

import numpy as np
import pytest

import opdiff


def test_identical_arrays_match_exactly():
    golden = np.linspace(-3, 3, 1001, dtype=np.float32)
    m = opdiff.metrics(golden, golden)
    assert abs(m.cosine_similarity - 1.0) < 1e-12
    assert m.max_absolute_error == 0.0
    assert m.allclose_fraction == 1.0


@pytest.mark.cli_output
def test_cli_simd_command_runs():
    out = subprocess.run([sys.executable, "-m", "opdiff", "simd"], capture_output=True, text=True, check=True)
    assert opdiff.simd_info()["active"] in out.stdout

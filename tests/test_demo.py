import subprocess
import sys
from pathlib import Path

import numpy as np

from _child_env import child_env


def test_demo_finds_the_injected_fault(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "opdiff", "demo", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        env=child_env(COLUMNS="120", PATH=""),
    )
    assert "first divergence: op block2/conv1" in out.stdout
    golden = sorted((tmp_path / "golden").glob("*.npy"))
    device = sorted((tmp_path / "device").glob("*.npy"))
    assert len(golden) == len(device) == 21
    assert np.load(device[0]).dtype == np.float16 and np.load(golden[0]).dtype == np.float32
    assert not list(tmp_path.rglob("*.partial"))


def test_demo_with_an_unknown_fault_op_is_a_clear_error(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "opdiff", "demo", "--dir", str(tmp_path), "--fault", "nope"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and "no op named 'nope'" in out.stdout

"""convert -t msnpy (npy files named for MindSpore) and -t pt (PyTorch tensors), with the reference's
meaning; msnpy also checked against the reference itself as a black box where it is installed."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import numpy as np
import pytest

import opdiff
from opdiff.dumps import Tensor
from tests.support.plugin_folders import REFERENCE_VENVS

ROOT = Path(__file__).resolve().parents[2]
NAME = "Conv2D.net_conv1_Conv2D.3.2.1700000000000000"


def _dumps(folder: Path) -> Path:
    rng = np.random.default_rng(0)
    folder.mkdir(parents=True, exist_ok=True)
    opdiff.write_dump(folder / NAME, "net/conv1/Conv2D", inputs=[rng.standard_normal((1, 3, 4, 4)).astype(np.float16)],
                      outputs=[Tensor(rng.standard_normal((1, 20, 2, 2)).astype(np.float16), layout="NC1HWC0")])
    opdiff.write_dump(folder / "Add.add.1.1.1700000000000001", "add", outputs=[rng.standard_normal((2, 5)).astype(np.float32)])
    return folder


def _convert(*args: str, env: Dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "opdiff", "convert", *args], capture_output=True, text=True, check=False, env=env)


def _arrays(folder: Path) -> Dict[str, np.ndarray]:
    return {path.name: np.load(path) for path in sorted(folder.glob("*.npy"))}


def test_msnpy_names_the_files_for_mindspore_and_holds_the_npy_arrays(tmp_path: Path) -> None:
    dumps = _dumps(tmp_path / "in")
    assert _convert("-d", str(dumps), "-out", str(tmp_path / "npy")).returncode == 0
    assert _convert("-d", str(dumps), "-out", str(tmp_path / "ms"), "-t", "msnpy").returncode == 0
    ms, npy = _arrays(tmp_path / "ms"), _arrays(tmp_path / "npy")
    assert sorted(ms) == ["Add.add.1.1.1700000000000001.output.0.ND.npy", "Conv2D.Conv2D.3.2.1700000000000000.input.0.ND.npy",
                          "Conv2D.Conv2D.3.2.1700000000000000.output.0.NC1HWC0.npy"]
    assert np.array_equal(ms["Conv2D.Conv2D.3.2.1700000000000000.output.0.NC1HWC0.npy"], npy[f"{NAME}.output.0.npy"])


def test_msnpy_with_a_format_names_the_target_layout(tmp_path: Path) -> None:
    dumps = _dumps(tmp_path / "in")
    out = _convert("-d", str(dumps / NAME), "-out", str(tmp_path / "ms"), "-t", "msnpy", "-f", "NCHW", "-o", "0")
    assert out.returncode == 0, out.stderr
    assert sorted(_arrays(tmp_path / "ms")) == ["Conv2D.Conv2D.3.2.1700000000000000.output.0.NCHW.npy"]


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="PyTorch is installed here")
def test_pt_without_torch_exits_2_saying_so(tmp_path: Path) -> None:
    out = _convert("-d", str(_dumps(tmp_path / "in")), "-out", str(tmp_path / "pt"), "-t", "pt")
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1 and "needs PyTorch" in out.stderr
    assert not list((tmp_path / "pt").glob("*.pt"))


def test_pt_writes_one_torch_file_per_tensor(tmp_path: Path) -> None:
    """With a stand-in torch (from_numpy, save by np.save) where PyTorch is not installed."""
    env = dict(os.environ)
    if importlib.util.find_spec("torch") is None:
        stub = tmp_path / "stub" / "torch"
        stub.mkdir(parents=True)
        (stub / "__init__.py").write_text("import numpy as np\n\ndef from_numpy(a):\n    return a\n\n"
                                          "def save(t, path):\n    with open(path, 'wb') as f:\n        np.save(f, t)\n")
        env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "stub"), env.get("PYTHONPATH", "")])
    dumps = _dumps(tmp_path / "in")
    out = _convert("-d", str(dumps), "-out", str(tmp_path / "pt"), "-t", "pt", env=env)
    assert out.returncode == 0, out.stderr
    names = sorted(path.name for path in (tmp_path / "pt").glob("*.pt"))
    assert names == ["Add.add.1.1.1700000000000001.output.0.pt", f"{NAME}.input.0.pt", f"{NAME}.output.0.pt"]
    if importlib.util.find_spec("torch") is None:
        assert np.load(tmp_path / "pt" / f"{NAME}.output.0.pt").shape == (1, 2, 2, 2, 16)
    assert _convert("-d", str(dumps), "-out", str(tmp_path / "pt2"), "-t", "pt", "-f", "NCHW", env=env).returncode == 2


def _reference() -> List[str]:
    for venv in REFERENCE_VENVS:
        scripts = sorted(venv.glob("lib/python*/site-packages/msprobe/msaccucmp/msaccucmp.py"))
        library = ROOT / "bench" / "reference_tool" / "build" / "libascend_dump_parser.so"
        if scripts and library.exists():
            return [str(venv / "bin" / "python"), str(scripts[0])]
    pytest.skip("the reference (mindstudio-probe in /work/venv-ref or /tmp/ref) and its dump parser "
                "(bench/reference_tool/build.sh) are needed for the black-box check")


@pytest.mark.parametrize("flags", [(), ("-f", "NCHW", "-o", "0")])
def test_msnpy_agrees_with_the_reference(tmp_path: Path, flags: tuple[str, ...]) -> None:
    reference = _reference()
    dumps = _dumps(tmp_path / "in")
    env = {**os.environ, "LD_LIBRARY_PATH": str(ROOT / "bench" / "reference_tool" / "build")}
    # -f: the NC1HWC0 output only (the reference refuses ND to NCHW, and then exits non-zero)
    for file in sorted(dumps.iterdir()) if not flags else [dumps / NAME]:
        theirs = subprocess.run([*reference, "convert", "-d", str(file), "-out", str(tmp_path / "ref"), "-t", "msnpy", *flags],
                                capture_output=True, text=True, check=False, env=env)
        assert theirs.returncode == 0, theirs.stdout[-2000:]
        assert _convert("-d", str(file), "-out", str(tmp_path / "ours"), "-t", "msnpy", *flags).returncode == 0
    ours, theirs_arrays = _arrays(tmp_path / "ours"), _arrays(tmp_path / "ref")
    assert sorted(ours) == sorted(theirs_arrays)
    for name, array in ours.items():
        assert array.shape == theirs_arrays[name].shape and np.allclose(array, theirs_arrays[name]), name

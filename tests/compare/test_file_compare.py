"""`opdiff file-compare`: two .npy files, the reference's file_compare metrics and result file."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import opdiff
from opdiff.engine.file_compare import FILE_ALGORITHMS, compare_files
from tests.support.child_env import child_env


def test_metrics_equal_those_of_the_arrays(tmp_path):
    rng = np.random.default_rng(2)
    golden = rng.standard_normal((3, 50, 7)).astype(np.float32)
    mine = (golden * (1 + 1e-3 * rng.standard_normal(golden.shape))).astype(np.float16)
    np.save(tmp_path / "a.npy", mine)
    np.save(tmp_path / "b.npy", golden)
    result = compare_files(tmp_path / "a.npy", tmp_path / "b.npy")
    expected = opdiff.metrics(mine, golden)
    assert result.shape == (3, 50, 7)
    assert result.metrics.cosine_similarity == pytest.approx(expected.cosine_similarity, rel=1e-12)
    assert result.metrics.max_relative_error == expected.max_relative_error
    names = [line.split(": ")[0] for line in result.lines()]
    assert names == list(FILE_ALGORITHMS) and "KullbackLeiblerDivergence" not in names and len(names) == 8


def test_bad_inputs_are_clear_errors(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros((2, 3), np.float32))
    np.save(tmp_path / "b.npy", np.zeros(6, np.float32))
    (tmp_path / "c.bin").write_bytes(b"x")
    with pytest.raises(ValueError, match=r"shapes differ: .*a.npy holds \[2, 3\]"):
        compare_files(tmp_path / "a.npy", tmp_path / "b.npy")
    with pytest.raises(ValueError, match=r"c\.bin: file-compare takes \.npy files"):
        compare_files(tmp_path / "c.bin", tmp_path / "b.npy")
    with pytest.raises(ValueError, match=r"nope\.npy: no such file"):
        compare_files(tmp_path / "nope.npy", tmp_path / "b.npy")


def test_cli_writes_the_result_file(tmp_path):
    np.save(tmp_path / "a.npy", np.array([1.0, 2.0, 3.0], np.float16))
    np.save(tmp_path / "b.npy", np.array([1.0, 2.0, 3.5], np.float32))
    out = subprocess.run([sys.executable, "-m", "opdiff", "file_compare", "-m", str(tmp_path / "a.npy"), "-g",
                          str(tmp_path / "b.npy"), "-out", str(tmp_path / "out")],
                         capture_output=True, text=True, env=child_env(COLUMNS="120"))
    assert out.returncode == 0, out.stderr
    (result,) = (tmp_path / "out").glob("file_result_*.txt")
    lines = result.read_text().splitlines()
    assert lines[1] == "MaxAbsoluteError: 0.500000" and len(lines) == 8
    assert not list((tmp_path / "out").glob("*.partial"))
    bad = subprocess.run([sys.executable, "-m", "opdiff", "file-compare", "-m", str(tmp_path / "a.npy"), "-g",
                          str(tmp_path / "missing.npy")], capture_output=True, text=True, env=child_env(COLUMNS="120"))
    assert bad.returncode == 2 and "missing.npy: no such file" in bad.stderr

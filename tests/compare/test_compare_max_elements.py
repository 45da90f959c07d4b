"""`-max N` (max_elements): only the first N logical elements of each tensor are compared against golden
files, as the reference does (after the layout is decoded); NPU against NPU compares everything."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import opdiff
from opdiff.dumps import Tensor
from tests.compare.test_compare_end_to_end import TS, conv_relu_case  # noqa: F401  (fixture)
from tests.support.child_env import child_env


def _output_row(report):
    (row,) = [row for row in report.rows if row.tensor_index.endswith(":output:0")]
    return row


def test_max_elements_compares_the_logical_prefix(conv_relu_case):  # noqa: F811
    full = _output_row(opdiff.compare(conv_relu_case["npu"], conv_relu_case["golden"], fusion_rule=conv_relu_case["rule"]))
    n = 5 * 64 - 7  # ends inside channel 4, before the faulty channel 5; not a multiple of C0 or of a row
    cut = _output_row(opdiff.compare(conv_relu_case["npu"], conv_relu_case["golden"], fusion_rule=conv_relu_case["rule"],
                                     max_elements=n))
    assert full.metrics.count == 16 * 64 and cut.metrics.count == n
    # The prefix is taken in the golden's logical NCHW order, not in the stored NC1HWC0 order.
    golden = np.load(next(conv_relu_case["golden"].glob("conv1_Relu.0.*.npy"))).reshape(-1)
    mine = opdiff.read_dump(next(conv_relu_case["npu"].iterdir())).outputs[0].to_numpy().reshape(-1)
    expected = opdiff.metrics(mine[:n], golden[:n])
    assert cut.metrics.cosine_similarity == pytest.approx(expected.cosine_similarity, rel=1e-12)
    assert cut.metrics.max_absolute_error == expected.max_absolute_error
    assert cut.metrics.cosine_similarity > 0.9999 > full.metrics.cosine_similarity
    # Larger than the tensor: everything.
    big = _output_row(opdiff.compare(conv_relu_case["npu"], conv_relu_case["golden"], fusion_rule=conv_relu_case["rule"],
                                     max_elements=10**9))
    assert big.metrics.count == 16 * 64


def test_max_elements_is_ignored_npu_against_npu(tmp_path):
    data = np.random.default_rng(3).standard_normal((1, 20, 4, 4)).astype(np.float32)
    for side in ("a", "b"):
        (tmp_path / side).mkdir()
        opdiff.write_dump(tmp_path / side / f"Op.conv.0.1.{TS}", "conv", outputs=[Tensor(data, layout="NC1HWC0", dtype="float16")])
    (row,) = opdiff.compare(tmp_path / "a", tmp_path / "b", max_elements=10).rows
    assert row.metrics.count == data.size


def test_cli_max_flag(conv_relu_case):  # noqa: F811
    base = [sys.executable, "-m", "opdiff", "compare", "-m", str(conv_relu_case["npu"]), "-g", str(conv_relu_case["golden"]),
            "-f", str(conv_relu_case["rule"]), "-out", str(conv_relu_case["out"])]
    ok = subprocess.run(base + ["-max", "100", "--fail-under", "CosineSimilarity=0.99"], capture_output=True, text=True,
                        env=child_env(COLUMNS="160"))
    assert ok.returncode == 0, ok.stdout + ok.stderr  # the faulty channel lies past the first 100 elements
    bad = subprocess.run(base + ["-max", "-1"], capture_output=True, text=True, env=child_env(COLUMNS="160"))
    assert bad.returncode == 2 and "max_elements (-max) wants a count >= 0" in bad.stderr
    with pytest.raises(ValueError, match="max_elements"):
        opdiff.compare(conv_relu_case["npu"], conv_relu_case["golden"], fusion_rule=conv_relu_case["rule"], max_elements=-3)

"""The default verdict (opdiff.results.verdict) on a unit-scale generated network: rounding passes,
every fault of issue #14's table fails at its op, a tiny branch flushed to zero passes without a
finding; NPU vs golden (through the fusion rule) and NPU vs NPU (by op name) alike."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Optional

import ml_dtypes
import numpy as np
import pytest

import opdiff
from opdiff.advisor.tensor_advisor import advise
from opdiff.graph import read_graph
from opdiff.numerics.precision import BF16_VS_FP32, FP8_VS_FLOAT, FP16_VS_FP32, INT8_VS_FLOAT, PRECISION_ROWS, precision_row
from opdiff.results.findings import FindingKind
from opdiff.results.rows import CompareRow, TensorId
from opdiff.results.verdict import PrecisionVerdict, Threshold, ThresholdVerdict
from tests.support.child_env import child_env
from tests.support.verdict_network import TINY_BRANCH, Fault, FaultKind, Precision, write_verdict_case

FAULT_OP = 12
SIDES = ("golden", "npu")


def _compare(tmp_path: Path, precision: Precision, fault: Optional[Fault], side: str):
    case = write_verdict_case(tmp_path, precision, fault)
    if side == "golden":
        report = opdiff.compare(case.npu, case.golden, fusion_rule=case.rule)
    else:
        report = opdiff.compare(case.npu, case.reference_npu)
    return case, report


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("precision", list(Precision))
def test_rounding_alone_passes_with_no_finding(tmp_path: Path, precision: Precision, side: str) -> None:
    case, report = _compare(tmp_path, precision, None, side)
    assert report.summary()["compared"] >= 30
    assert report.failing() == []
    tiny = [row for row in report.compared if row.tensor_index == f"{TINY_BRANCH}:output:0"]
    assert tiny and tiny[0].metrics is not None
    rule = read_graph(case.rule) if side == "golden" else None
    findings = advise(report, rule)
    assert [f.kind for f in findings] == [FindingKind.VERDICT]
    assert "every compared tensor meets the thresholds" in findings[0].evidence


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("precision", list(Precision))
@pytest.mark.parametrize("fault", [Fault(FaultKind.SCALE, FAULT_OP, 1.1), Fault(FaultKind.SCALE, FAULT_OP, 1.6),
                                   Fault(FaultKind.SCALE, FAULT_OP, 0.5), Fault(FaultKind.SIGN_FLIP, FAULT_OP),
                                   Fault(FaultKind.BIAS, FAULT_OP, 0.5)], ids=lambda f: f"{f.kind.value}{f.value:g}")
def test_a_fault_fails_first_at_its_op(tmp_path: Path, precision: Precision, side: str, fault: Fault) -> None:
    case, report = _compare(tmp_path, precision, fault, side)
    first = report.first_failure()
    assert first is not None and first.tensor_index == f"{case.op_names[FAULT_OP]}:output:0"
    assert all(not report.verdict().fails(row) for row in report.rows if row.index < first.index)
    if fault.kind is FaultKind.SCALE:
        assert first.metrics is not None and first.metrics.cosine_similarity > 0.9999  # the cosine alone is blind here
        assert math.isclose(first.metrics.norm_ratio_error, abs(fault.value - 1), rel_tol=0.02)
    rule = read_graph(case.rule) if side == "golden" else None
    culprit = advise(report, rule)[0]
    assert culprit.kind is FindingKind.CULPRIT and culprit.op == case.op_names[FAULT_OP]


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("precision", [Precision.FP16, Precision.BF16])
def test_a_skipped_op_fails_with_a_constant_output_finding(tmp_path: Path, precision: Precision, side: str) -> None:
    case, report = _compare(tmp_path, precision, Fault(FaultKind.SKIPPED, FAULT_OP), side)
    first = report.first_failure()
    assert first is not None and first.tensor_index == f"{case.op_names[FAULT_OP]}:output:0"
    findings = advise(report, read_graph(case.rule) if side == "golden" else None)
    constant = [f for f in findings if f.kind is FindingKind.CONSTANT_OUTPUT]
    assert [f.op for f in constant] == [case.op_names[FAULT_OP]]


def test_the_reference_verdict_is_blind_to_scale(tmp_path: Path) -> None:
    case, report = _compare(tmp_path, Precision.FP16, Fault(FaultKind.SCALE, FAULT_OP, 1.6), "golden")
    reference = ThresholdVerdict((Threshold("CosineSimilarity", 0.99),), name="reference")
    assert report.failing(reference) == []  # cosine alone: every scaled tensor passes
    assert report.first_failure().tensor_index == f"op{FAULT_OP}:output:0"
    tiny = next(row for row in report.rows if row.tensor_index == f"{TINY_BRANCH}:output:0")
    # the flushed branch is 100% off in magnitude, and passes only because it is negligible at the network's scale
    assert tiny.metrics is not None and tiny.metrics.norm_ratio_error == 1.0
    assert report.verdict().negligible(tiny) and not report.verdict().fails(tiny)
    # no finding fires on it under either verdict: its golden varies, at 1e-41
    for verdict in (None, reference):
        findings = advise(report, read_graph(case.rule), verdict=verdict)
        assert not any(f.op == TINY_BRANCH and f.kind is not FindingKind.VERDICT for f in findings), findings


def _row(my: np.ndarray, golden: np.ndarray, my_dtype: str, golden_dtype: str = "float32") -> CompareRow:
    return CompareRow(0, "Conv2D", "c", "c", TensorId("c", "output", 0), my_dtype=my_dtype, golden_dtype=golden_dtype,
                      metrics=opdiff.metrics(my, golden))


def test_precision_rows_follow_from_the_unit_roundoff() -> None:
    # c = sqrt(1 - (16 rho1)^2), r = 8 rho1, rho1 = u / sqrt(3) (docs/metrics.md)
    assert math.isclose(FP16_VS_FP32.norm_ratio, 8 * 2**-11 / math.sqrt(3))
    assert math.isclose(1 - FP16_VS_FP32.cosine, 0.5 * (16 * 2**-11) ** 2 / 3, rel_tol=1e-4)
    assert math.isclose(BF16_VS_FP32.norm_ratio, 8 * 2**-8 / math.sqrt(3))
    # a 10% scale error fails in every row down to int8 (fp8's own rounding is coarser than that)
    assert all(row.norm_ratio < 0.1 for row in PRECISION_ROWS if row is not FP8_VS_FLOAT)
    # the cosine of a sign-flipped channel of 16 (0.875) fails everywhere
    assert all(row.cosine > 0.875 for row in PRECISION_ROWS if row is not FP8_VS_FLOAT)
    assert INT8_VS_FLOAT.cosine < BF16_VS_FP32.cosine < FP16_VS_FP32.cosine


def test_rows_for_dtype_pairs_take_the_coarser_side() -> None:
    assert precision_row("float16", "float32", npu_vs_npu=False, quantized=False) is FP16_VS_FP32
    assert precision_row("float32", "bfloat16", npu_vs_npu=False, quantized=False) is BF16_VS_FP32
    assert precision_row("int32", "int32", npu_vs_npu=False, quantized=False) is FP16_VS_FP32
    assert precision_row("float16", "float16", npu_vs_npu=True, quantized=False).name.startswith("equal dtypes")
    assert precision_row("float8_e4m3fn", "float32", npu_vs_npu=False, quantized=False).name.startswith("fp8")


def test_fp16_rounding_of_real_data_passes_and_a_two_percent_scale_fails() -> None:
    y = np.random.default_rng(1).standard_normal(1 << 14).astype(np.float32)
    verdict = PrecisionVerdict(scale=1.0)
    assert not verdict.fails(_row(y.astype(np.float16), y, "float16"))
    assert verdict.fails(_row((1.02 * y).astype(np.float16), y, "float16"))
    assert not verdict.fails(_row(y.astype(ml_dtypes.bfloat16), y, "bfloat16"))


def test_negligible_differences_pass_relative_to_the_network_not_a_fixed_cut() -> None:
    y = np.random.default_rng(2).standard_normal(4096).astype(np.float32)
    flushed = _row(np.zeros_like(y), y * 1e-30, "float16")
    assert not PrecisionVerdict(scale=1.0).fails(flushed)        # 1e-30 beside tensors of order 1
    assert PrecisionVerdict(scale=1e-30).fails(flushed)          # the same tensor where 1e-30 is the scale
    assert PrecisionVerdict(scale=1.0).fails(_row(np.zeros_like(y), y, "float16"))  # a skipped op


def test_cli_fail_thresholds_and_reports_name_the_verdict(tmp_path: Path) -> None:
    case = write_verdict_case(tmp_path / "case", Precision.FP16, Fault(FaultKind.SCALE, FAULT_OP, 1.6))
    base = [sys.executable, "-m", "opdiff", "compare", "-m", str(case.npu), "-g", str(case.golden), "-f", str(case.rule)]

    def run(*extra: str, out: str) -> subprocess.CompletedProcess:
        return subprocess.run(base + ["-out", str(tmp_path / out), *extra], capture_output=True, text=True,
                              env=child_env(COLUMNS="200", PATH="/usr/bin:/bin"), timeout=120)

    plain = run("--report", "json", out="plain")
    assert plain.returncode == 0, plain.stderr
    assert "first failing tensor in execution order: op12:output:0" in plain.stdout
    assert "verdict (default): fp16 vs fp32: CosineSimilarity >= 0.99999, NormRatioError <= 0.00226" in plain.stdout
    document = json.loads(next((tmp_path / "plain").glob("result_*.json")).read_text())
    assert document["verdict"] == "default"
    assert {t["applies_to"] for t in document["thresholds"]} >= {"fp16 vs fp32", "int8-quantised vs float"}
    assert document["summary"]["failing"] == 2 * (30 - FAULT_OP) - 1
    assert run("--fail", out="fail").returncode == 3
    assert run("--fail", "--thresholds", "reference", out="ref").returncode == 0  # blind to the scale fault
    assert run("--fail-under", "CosineSimilarity=0.9", out="cos").returncode == 0
    assert run("--fail-under", "NormRatioError=0.5", out="norm").returncode == 3
    bad = run("--fail-under", "NormRatioError=0.5", "--thresholds", "reference", out="bad")
    assert bad.returncode == 2 and "does not combine" in bad.stderr

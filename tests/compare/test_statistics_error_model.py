"""One error model for both verdicts (issue 24, item 4): the statistics verdict takes its limits from
the tensor verdict's precision rows (opdiff.numerics.precision, opdiff.numerics.statistics_limits).
On the generated clean-noise network (tests.support.noise_network) nothing fails under either
verdict, in every layout and data type; a x1.6 fault from op k fails first at op k, statistics
against statistics and against the golden; and, as a property, a tensor that passes the tensor
verdict passes the statistics verdict too."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, Optional, Set, Tuple, Union

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opdiff
from opdiff.demo.statistics_network import DTYPES, LAYOUTS
from opdiff.numerics.precision import FP16_NPU_VS_NPU, FP16_VS_FP32, PRECISION_ROWS, precision_row
from opdiff.numerics.statistics_limits import PRINTED_DIGITS, statistics_limits, tail_factor
from opdiff.numerics.tensor_statistics import TensorStatistics
from opdiff.results.rows import CompareRow, TensorId
from opdiff.results.statistics_report import StatisticsReport
from opdiff.results.statistics_rows import StatisticsDifferences, StatisticsRow
from opdiff.results.statistics_verdict import StatisticsVerdict
from opdiff.results.tensor_report import Report
from opdiff.results.verdict import PrecisionVerdict
from tests.support.noise_network import NoiseCase, write_noise_case

CASES = [(layout, dtype) for layout in LAYOUTS for dtype in DTYPES]
OPS = 30
K = 12


def _compare(mine: Path, golden: Path, rule: Optional[Path]) -> Union[Report, StatisticsReport]:
    return opdiff.compare(mine, golden, fusion_rule=rule)


Side = Tuple[Path, Path]


def _pairs(case: NoiseCase) -> Tuple[Tuple[Side, Side, Optional[Path]], ...]:
    """(statistics side, tensor side, rule) against the golden (fusion rule) and NPU vs NPU."""
    return (((case.statistics, case.golden), (case.full, case.golden), case.rule),
            ((case.statistics, case.reference_statistics), (case.full, case.reference_full), None))


@pytest.mark.parametrize("layout, dtype", CASES)
def test_clean_noise_passes_the_statistics_and_the_tensor_verdict(tmp_path: Path, layout: str, dtype: str) -> None:
    """The issue's network: sigma = 1e-3 x mean |golden|, about three fp16 roundings RMS."""
    case = write_noise_case(tmp_path, layout=layout, dtype=dtype, ops=OPS, noise=1e-3)
    for statistics, tensors, rule in _pairs(case):
        for mine, golden in (statistics, tensors):
            report = _compare(mine, golden, rule)
            assert report.summary()["compared"] == 2 * (OPS - 1)
            assert report.failing() == [], (mine.name, golden.name, report.failing()[0])


@pytest.mark.parametrize("layout, dtype", CASES)
def test_a_scale_fault_fails_first_at_its_op_against_statistics_and_the_golden(tmp_path: Path, layout: str, dtype: str) -> None:
    case = write_noise_case(tmp_path, layout=layout, dtype=dtype, ops=OPS, fault_from=K, scale=1.6)
    for (mine, golden), _, rule in _pairs(case):
        report = _compare(mine, golden, rule)
        assert isinstance(report, StatisticsReport)
        first = report.first_failure()
        assert first is not None and first.tensor_index == f"{case.op_names[K]}:output:0", (golden.name, first)
        assert first.differences is not None and math.isclose(first.differences.worst_norm, 0.6, rel_tol=0.05)


def _judged(report: Report) -> Dict[str, bool]:
    verdict = report.verdict()
    return {row.tensor_index: verdict.fails(row) for row in report.compared}


@settings(max_examples=24, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(layout=st.sampled_from(LAYOUTS), dtype=st.sampled_from(DTYPES), budget=st.floats(0.0, 1.5),
       offset=st.floats(0.0, 3.0), seed=st.integers(0, 2**16))
def test_a_tensor_that_passes_the_tensor_verdict_passes_the_statistics_verdict(
        tmp_path_factory: pytest.TempPathFactory, layout: str, dtype: str, budget: float, offset: float, seed: int) -> None:
    """Noise up to 1.5 times the error norm the tensor verdict passes (so some tensors fail it), on
    goldens whose offsets take the crest factor down to about 1 (the max's hardest case)."""
    noise = budget * precision_row(dtype, "float32", npu_vs_npu=False, quantized=False).error_norm
    case = write_noise_case(tmp_path_factory.mktemp("case"), layout=layout, dtype=dtype, ops=8, noise=noise,
                            offset=offset, seed=seed)
    for (statistics_mine, statistics_golden), (tensor_mine, tensor_golden), rule in _pairs(case):
        tensors = _compare(tensor_mine, tensor_golden, rule)
        statistics = _compare(statistics_mine, statistics_golden, rule)
        assert isinstance(tensors, Report) and isinstance(statistics, StatisticsReport)
        tensor_fails = _judged(tensors)
        statistics_fails: Set[str] = {row.tensor_index for row in statistics.failing()}
        assert set(tensor_fails) == {row.tensor_index for row in statistics.compared}
        assert not {name for name, fails in tensor_fails.items() if not fails} & statistics_fails


def _side(values: np.ndarray, data_type: str) -> TensorStatistics:
    return TensorStatistics("output", 0, data_type, "ND", values.shape, values.size, float(values.max()), float(values.min()),
                            float(values.mean()), 0, 0, 0)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(2, 5000), bias=st.floats(-1.0, 1.0), spread=st.floats(0.0, 1.0),
       offset=st.floats(-5.0, 5.0), fraction=st.floats(0.0, 1.0))
def test_the_mean_moves_within_its_limit_under_any_error_the_tensor_verdict_passes(
        seed: int, size: int, bias: float, spread: float, offset: float, fraction: float) -> None:
    """|mean e| <= RMS(e) <= rho RMS(y) <= rho M holds for every error, biased, sparse or spread."""
    rng = np.random.default_rng(seed)
    y = rng.standard_normal(size) + offset
    error = bias + spread * rng.standard_normal(size) * (rng.random(size) < rng.random())
    if not np.linalg.norm(error) > 1e-9:  # no error to scale
        return
    row = FP16_VS_FP32
    x = y + error * (fraction * row.error_norm * np.linalg.norm(y) / np.linalg.norm(error))
    tensor_row = CompareRow(0, "Conv2D", "c", "c", TensorId("c", "output", 0), my_dtype="float16", golden_dtype="float32",
                            metrics=opdiff.metrics(x, y))
    if PrecisionVerdict(scale=0.0).fails(tensor_row):
        return
    differences = StatisticsDifferences.between(_side(x, "DT_FLOAT16"), _side(y, "DT_FLOAT"))
    assert differences.mean_norm <= statistics_limits(row, size).mean


def test_the_limits_follow_from_the_precision_rows() -> None:
    for row in PRECISION_ROWS:
        # the error norm a passing tensor can have: at NormRatioError = r and cosine = c exactly
        a, c = 1 + row.norm_ratio, row.cosine
        assert math.isclose(row.error_norm, math.sqrt(a * a - 2 * a * c + 1), rel_tol=1e-9)
        assert 16 * row.single_rounding < row.error_norm < 1.3 * 16 * row.single_rounding  # sqrt(1.25 + r) rho_c, about
        limits = statistics_limits(row, 1000)
        assert limits.mean == row.error_norm + PRINTED_DIGITS
        assert limits.extremes == tail_factor(1000) * row.error_norm + PRINTED_DIGITS
    assert tail_factor(10**9) < 8.5 and tail_factor(10) > 5  # grows as sqrt(ln n)
    # a x1.6 scale moves the max by 0.6 M: beyond the fp16, bf16 and NPU-vs-NPU limits at any size
    assert all(statistics_limits(precision_row(t, "DT_FLOAT", npu_vs_npu=npu, quantized=False), 10**9).extremes < 0.6
               for t in ("DT_FLOAT16", "DT_BF16", "DT_FLOAT") for npu in (False, True))


def test_the_statistics_verdict_takes_the_row_the_tensor_verdict_takes() -> None:
    golden = TensorStatistics("output", 0, "DT_FLOAT", "ND", (4096,), 4096, 3.49743, -3.6, 0.01, 0, 0, 0)
    mine = TensorStatistics("output", 0, "DT_FLOAT", "ND", (4096,), 4096, 3.49723, -3.6, 0.01, 0, 0, 0)
    row = StatisticsRow(1, "MatMulV2", "fc", "fc", TensorId("fc", "output", 0), mine, golden,
                        differences=StatisticsDifferences.between(mine, golden))
    # the example: MaxNormDiff 5.4e-5, which the single-rounding limit of fp32 (2e-5) failed
    assert not StatisticsVerdict().fails(row) and StatisticsVerdict().precision_row(row) is FP16_VS_FP32
    assert StatisticsVerdict(npu_vs_npu=True).precision_row(row) is FP16_NPU_VS_NPU
    assert StatisticsVerdict(quantized=True).precision_row(row).name == "int8-quantised vs float"
    limit = StatisticsVerdict().default_limits(row).extremes
    moved = TensorStatistics("output", 0, "DT_FLOAT", "ND", (4096,), 4096, 3.49743 + 1.01 * limit * 3.6, -3.6, 0.01, 0, 0, 0)
    assert StatisticsVerdict().fails(StatisticsRow(1, "MatMulV2", "fc", "fc", TensorId("fc", "output", 0), moved, golden,
                                                   differences=StatisticsDifferences.between(moved, golden)))
    assert "fp16 vs fp32: MeanNormDiff <= 0.00506" in StatisticsVerdict().describe([row])


def test_npu_vs_npu_statistics_take_the_npu_vs_npu_rows(tmp_path: Path) -> None:
    case = write_noise_case(tmp_path, layout="ND", dtype="float16", ops=4)
    report = opdiff.compare(case.statistics, case.reference_statistics)
    assert isinstance(report, StatisticsReport) and report.verdict().npu_vs_npu
    assert report.verdict().precision_row(report.compared[0]) is FP16_NPU_VS_NPU
    against_golden = opdiff.compare(case.statistics, case.golden, fusion_rule=case.rule)
    assert isinstance(against_golden, StatisticsReport) and not against_golden.verdict().npu_vs_npu

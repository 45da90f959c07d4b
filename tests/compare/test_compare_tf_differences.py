"""The differences found on TensorFlow-converted models, fixed (docs/compare-differences.md): groups
of several NPU ops written as the reference writes them, tensors decoded from their dump's own
original shape and origin format, and the refusal of a quantized model's dumps against a float
golden without -q. Cases by tests.support.difference_cases; the rows of groups and of the
flattening TransData are those the reference wrote for the same files (run as a black box,
bench/crosscheck_reference_compare.py), the others are checked against the golden's own values."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import opdiff
from opdiff.dumps import Tensor, write_dump
from opdiff.engine.options import CompareOptions
from opdiff.graph.json_export import write_atc_json
from opdiff.graph.rule_builder import RuleOp, RuleOutput, fusion_rule
from tests.support.child_env import child_env
from tests.support.difference_cases import DifferenceCase, decoded, group_case, layout_case


def compared_rows(case: DifferenceCase) -> list:
    report = opdiff.compare(case.my, case.golden, fusion_rule=case.rule, algorithms=("CosineSimilarity",))
    return list(report.rows)


def by_tensor(rows) -> dict:
    return {row.tensor_index: row for row in rows}


def cosine(x: np.ndarray, y: np.ndarray) -> float:
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    return float(x64 @ y64 / np.linalg.norm(x64) / np.linalg.norm(y64))


@pytest.fixture(scope="module")
def groups(tmp_path_factory) -> DifferenceCase:
    return group_case(tmp_path_factory.mktemp("groups"))


@pytest.fixture(scope="module")
def layouts(tmp_path_factory) -> DifferenceCase:
    return layout_case(tmp_path_factory.mktemp("layouts"))


def test_a_group_member_without_a_dump_gets_no_row_when_another_member_has_one(groups):
    rows = [row for row in compared_rows(groups) if row.index == 1]
    assert [row.tensor_index for row in rows] == ["PartitionedCall_Gather_1221_gatherv2_3:input:0",
                                                   "PartitionedCall_Gather_1221_gatherv2_3:output:0"]
    assert all(row.compared and row.npu_dump == "PartitionedCall_Gather_1221_const_data_2,PartitionedCall_Gather_1221_gatherv2_3"
               for row in rows)


def test_a_group_without_any_dump_is_one_row_with_every_member_s_reason(groups):
    (row,) = [row for row in compared_rows(groups) if row.index == 2]
    assert (row.op_type, row.tensor_index, row.compared) == ("Const", "NaN", False)
    assert row.reasons == (
        '[PC_Gather_9_const] There is no dump file for my output operator "PC_Gather_9_const". The type is Const.',
        '[PC_Gather_9_gatherv2] There is no dump file for my output operator "PC_Gather_9_gatherv2". The type is GatherV2.',
    )


def test_an_inner_node_of_a_many_to_many_group_gets_the_reference_s_row(groups):
    rows = compared_rows(groups)
    (compared,) = [row for row in rows if row.index == 3]
    assert compared.tensor_index == "fc1000_dequant_layer:output:0" and compared.compared
    (skipped,) = [row for row in rows if row.index == 4]
    assert (skipped.op_type, skipped.npu_dump, skipped.ground_truth) == (
        "RequantHostCpuOp", "RequantHostCpuOp_200,fc2_dequant_layer", "fc2,fc2_dequant_layer")
    assert skipped.reasons == (
        "[RequantHostCpuOp_200] The op is inner node for multi to multi relation.Skip the op.",
        '[fc2_dequant_layer] There is no dump file for my output operator "fc2_dequant_layer". The type is MatMulV2.',
    )


def test_a_group_the_quant_filter_skips_whole_is_one_row_without_a_reason(groups):
    (row,) = [row for row in compared_rows(groups) if row.index == 6]
    assert (row.op_type, row.npu_dump, row.ground_truth, row.tensor_index) == ("Conv2D", "conv_a,conv_b", "conv", "NaN")
    assert not row.compared and row.reasons == ()


def test_compared_group_members_have_the_golden_s_values(groups):
    rows = by_tensor(compared_rows(groups))
    for key in groups.expected:
        golden, device = decoded(groups, key)
        assert rows[key].metrics.cosine_similarity == pytest.approx(cosine(device, golden), abs=1e-6), key


def test_tensors_decoded_from_their_own_original_shape_match_the_golden_s_values(layouts):
    rows = by_tensor(compared_rows(layouts))
    assert set(layouts.expected) <= set(rows)
    for key in layouts.expected:
        golden, device = decoded(layouts, key)
        row = rows[key]
        assert row.compared, (key, row.reasons)
        assert row.metrics.cosine_similarity == pytest.approx(cosine(device, golden), abs=1e-6), key
        assert row.metrics.max_absolute_error == pytest.approx(float(np.max(np.abs(device - golden))), rel=1e-6), key
        assert row.metrics.cosine_similarity > 0.9999, key


def test_the_shape_column_is_the_decoded_logical_shape(layouts):
    rows = by_tensor(compared_rows(layouts))
    assert rows["pool/GlobalAveragePool_trans:output:0"].reference_shape in (None, (1, 2048))
    assert rows["pool/GlobalAveragePool_trans:output:0"].shape == (1, 2048)  # as the reference prints it
    assert rows["flatten/Reshape_trans:output:0"].shape == (4, 28, 28, 1)
    assert rows["pool2/MaxPool_trans:output:0"].shape == (4, 1568)
    assert rows["conv3/Conv:output:0"].shape == (1, 8, 8, 24)  # laid out as the golden's NHWC


def test_a_golden_in_another_element_order_keeps_a_row_that_says_why(layouts):
    row = by_tensor(compared_rows(layouts))["mm/MatMul:output:0"]
    assert not row.compared
    assert row.reasons == ("[mm/MatMul] The original shape [24, 40] and the golden's [40, 24] hold as many elements but are "
                           "not one reshape of the other: their element orders may differ, so they are not compared.",)


def quantized_against_float(tmp_path: Path) -> DifferenceCase:
    """A quantized model's dump (its op name carries _dequant_layer) against a golden folder of
    the float model, whose names carry no quant marker."""
    npu, golden = tmp_path / "npu", tmp_path / "golden"
    npu.mkdir()
    golden.mkdir()
    x = np.ones((2, 8), np.float32)
    np.save(golden / "fc.0.1700000000000000.npy", x)
    write_dump(npu / "MatMulV2.fc_dequant_layer.1.1.1700000000000001", "fc_dequant_layer", outputs=[Tensor(x, dtype="float16")])
    path = tmp_path / "rule.json"
    write_atc_json(fusion_rule([RuleOp("fc_dequant_layer", "MatMulV2", 0, [], ["fc"], [RuleOutput("fc", 0, [2, 8])])]), path)
    return DifferenceCase(npu, golden, path)


def test_a_quantized_dump_against_a_float_golden_without_q_is_refused(tmp_path):
    case = quantized_against_float(tmp_path)
    with pytest.raises(ValueError, match=r"quantized model .*'fc_dequant_layer'.* -q QUANT_RULE"):
        opdiff.compare(case.my, case.golden, fusion_rule=case.rule)
    done = subprocess.run([sys.executable, "-m", "opdiff", "compare", "-m", str(case.my), "-g", str(case.golden),
                           "-f", str(case.rule), "-out", str(tmp_path / "out"), "--no-progress"],
                          capture_output=True, text=True, env=child_env(), timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    error = " ".join((done.stdout + done.stderr).split())
    assert "quantized model" in error and "-q QUANT_RULE" in error and "Traceback" not in error
    assert not list((tmp_path / "out").glob("result_*.csv"))


def test_the_single_op_detail_lays_the_dump_out_as_the_comparison_does(layouts):
    from opdiff.engine.single_op import single_op_detail

    detail = single_op_detail(layouts.my, layouts.golden, "flatten/Reshape_trans", options=CompareOptions(fusion_rule=layouts.rule))
    golden, device = decoded(layouts, "flatten/Reshape_trans:output:0")
    assert detail.shape == (4, 28, 28, 1) and detail.count == golden.size
    assert detail.max_absolute == pytest.approx(float(np.max(np.abs(device - golden))), rel=1e-6)
    with pytest.raises(ValueError, match=r"not one reshape of the other"):
        single_op_detail(layouts.my, layouts.golden, "mm/MatMul", options=CompareOptions(fusion_rule=layouts.rule))

"""Blocked dumps whose axes only GE's `origin_format` names, on the TransData whose own desc
states them (docs/compare-differences.md): decoded in that format, whatever the desc of the op the
golden comes from says, and compared by element count against a golden of another rank where the
element order allows. Checked against the golden's own values (tests.support.origin_format_cases)."""

from __future__ import annotations

import numpy as np
import pytest

import opdiff
from opdiff.dumps.formats import format_number
from opdiff.engine.layout_choice import decoded_form
from opdiff.match.op_matching import GoldenTarget, OwnDesc
from tests.support.origin_format_cases import FAULT, OriginFormatCase, origin_format_case


@pytest.fixture(scope="module")
def case(tmp_path_factory) -> OriginFormatCase:
    return origin_format_case(tmp_path_factory.mktemp("origins"))


@pytest.fixture(scope="module")
def rows(case) -> dict:
    report = opdiff.compare(case.my, case.golden, fusion_rule=case.rule, algorithms=("CosineSimilarity", "MaxAbsoluteError"))
    return {row.tensor_index: row for row in report.rows}


def cosine(x: np.ndarray, y: np.ndarray) -> float:
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    return float(x64 @ y64 / np.linalg.norm(x64) / np.linalg.norm(y64))


def test_the_trans_data_of_the_tf_converted_om_is_decoded_as_nhwc(rows):
    row = rows["dense_trans:output:0"]
    assert row.compared, row.reasons
    assert row.metrics.cosine_similarity == pytest.approx(1.0, abs=1e-12)
    assert row.metrics.max_absolute_error == 0.0
    assert row.shape == (100, 7, 7, 32)


def test_every_origin_format_meets_its_golden_of_another_rank(case, rows):
    for key, (golden, device) in case.expected.items():
        row = rows[key]
        assert row.compared, (key, row.reasons)
        assert row.metrics.cosine_similarity == pytest.approx(cosine(device, golden), abs=1e-9), key
        assert row.metrics.max_absolute_error == pytest.approx(float(np.max(np.abs(device - golden))), rel=1e-3), key


def test_the_faulty_element_is_found(case, rows):
    golden, device = case.expected["dense_faulty_trans:output:0"]
    row = rows["dense_faulty_trans:output:0"]
    assert int(np.argmax(np.abs(device - golden))) == 4321
    assert row.metrics.max_absolute_error == pytest.approx(FAULT, rel=1e-3)
    assert row.metrics.cosine_similarity < 1 - 1e-5


def test_a_golden_in_another_element_order_keeps_a_row_that_says_why(case, rows):
    (key,) = case.declined
    row = rows[key]
    assert not row.compared
    assert row.reasons == ("[nhwc_as_nchw_trans] The original shape [4, 7, 7, 32] and the golden's [4, 32, 49] hold as many "
                           "elements but are not one reshape of the other: their element orders may differ, so they are not compared.",)


def test_my_own_desc_names_the_axes_before_the_golden_op_s():
    # The golden op's desc says ND in its own 2-D shape; the TransData's says NHWC in the dump's 4-D one.
    target = GoldenTarget("g.npy", format="ND", shape=(100, 1568), own=OwnDesc("NHWC", None, (100, 7, 7, 32)))
    assert decoded_form(False, format_number("NC1HWC0"), (100, 2, 7, 7, 16), (), None, target) == ("NHWC", (100, 7, 7, 32))
    assert decoded_form(False, format_number("NC1HWC0"), (100, 2, 7, 7, 16), (100, 7, 7, 32), format_number("NCHW"),
                        GoldenTarget("g.npy", format="ND", shape=(100, 1568)))[0] == "NCHW"

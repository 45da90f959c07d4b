"""Compare end to end on the two real atc JSON samples, with dumps generated to match their graphs."""

from pathlib import Path

import pytest

import opdiff
from tests.support import paths
from tests.support.graph_dumps import write_graph_dumps

SAMPLES = sorted((paths.DATA / "atc-json").glob("*.json"))


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.name for s in SAMPLES])
def test_real_graph_compares_and_finds_the_faulty_op(sample: Path, tmp_path: Path) -> None:
    fm = opdiff.read_graph(sample)
    candidates = [op for op in fm.ops if op.type in ("Conv2D", "MatMulV2", "ConcatD", "Transpose", "TransposeD")]
    faulty = candidates[len(candidates) // 2].name
    case = write_graph_dumps(fm, tmp_path, faulty_op=faulty)
    report = opdiff.compare(case.npu, case.golden, fusion_rule=sample)
    compared = report.compared
    assert len(compared) >= case.ops_dumped  # every dumped op has at least its output compared
    failing = report.failing()
    assert failing, "the faulty op must fail"
    assert failing[0].tensor_index.startswith(faulty + ":output:")
    fine = [row for row in compared if not row.tensor_index.startswith(faulty + ":") and row not in failing]
    assert all(row.metrics.cosine_similarity > 0.999 for row in fine)
    # every tensor without a partner says why
    assert all(row.reasons for row in report.rows if not row.compared)

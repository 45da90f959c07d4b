"""One CompareOptions for every caller: compare()'s keywords replace its fields, -r/-s resolve
against the rule, and what --isolate re-runs is what the comparison compared."""

from __future__ import annotations

from pathlib import Path
from typing import Dict

import pytest

import opdiff
from opdiff.demo.report import write_case
from opdiff.engine.options import CompareOptions
from opdiff.match.id_selection import IdSelection


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    return write_case(tmp_path_factory.mktemp("options"), seed=0, fault="block2/conv1", fault_scale=1.5)


def _table(report: opdiff.Report) -> list:
    return [(row.npu_dump, row.tensor.role, row.tensor.index, row.metrics and row.metrics.cosine_similarity)
            for row in report.rows]


def test_keywords_and_options_give_the_same_comparison(case: Dict[str, Path]) -> None:
    options = CompareOptions(fusion_rule=case["rule"], algorithms=("CosineSimilarity",), threads=1)
    by_options = opdiff.compare(case["npu"], case["golden"], options)
    by_keywords = opdiff.compare(case["npu"], case["golden"], fusion_rule=case["rule"], algorithms=("CosineSimilarity",),
                                 threads=1)
    assert _table(by_options) == _table(by_keywords) and by_options.columns == by_keywords.columns
    assert opdiff.compare(case["npu"], case["golden"], options, threads=2).columns == by_options.columns


def test_an_unknown_keyword_is_a_type_error_naming_it(case: Dict[str, Path]) -> None:
    with pytest.raises(TypeError, match="rtoll"):
        opdiff.compare(case["npu"], case["golden"], rtoll=0.1)  # type: ignore[call-arg]


def test_options_refuse_what_the_flags_refuse() -> None:
    with pytest.raises(ValueError, match="-max"):
        CompareOptions(max_elements=-1)
    with pytest.raises(ValueError, match="-cf needs -f"):
        CompareOptions(close_fusion_rule="off.json")
    with pytest.raises(ValueError, match="non-negative"):
        CompareOptions(rtol=-1e-3)
    with pytest.raises(ValueError, match="need -f"):
        CompareOptions(ids=IdSelection(select="1")).read_rules()


def test_an_id_selection_resolves_against_the_rule(case: Dict[str, Path]) -> None:
    rule = opdiff.read_graph(case["rule"])
    last = max(op.id for op in rule.ops)
    selected = opdiff.compare(case["npu"], case["golden"], fusion_rule=rule, ids=IdSelection(range_text=f"{last - 1},-1,1"))
    by_ids = opdiff.compare(case["npu"], case["golden"], fusion_rule=rule, ids=(last - 1, last))
    assert _table(selected) == _table(by_ids)
    assert {row.npu_dump for row in selected.rows} == {op.name for op in rule.ops if op.id >= last - 1}


def test_the_files_isolation_reads_are_those_the_comparison_compared(case: Dict[str, Path]) -> None:
    rule = opdiff.read_graph(case["rule"])
    first_ids = tuple(sorted(op.id for op in rule.ops)[:3])
    report = opdiff.compare(case["npu"], case["golden"], fusion_rule=rule, ids=first_ids)
    compared = {row.npu_dump for row in report.rows if row.compared}
    assert set(report.my_files) == compared  # only the ops -s kept, not every op of the rule
    for op, path in report.my_files.items():
        assert Path(path).parent == case["npu"] and opdiff.read_dump(path).op_name == op

"""A folder of GE graph dumps as the rules of many runs: each run's model name picks its graph, the
Build stage wins over other stages of the same graph, and a clash with no Build stage is the run's
error, listing the files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import opdiff
from opdiff.engine.options import CompareOptions
from opdiff.graph.ge.writer import write_ge_graph_dumps
from opdiff.graph.model_def_builder import model_def_from_fusion_map, op_def
from opdiff.results.runs_summary import RunStatus
from opdiff.runs import RunsRequest, compare_runs
from opdiff.runs.rules import read_rules, rule_files
from tests.support.dump_tree import write_dump_tree


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return write_dump_tree(tmp_path_factory.mktemp("tree"), devices=(0,), steps=(0, 1))


def _decoy(rule_model):
    """The same graph name holding a different graph: what a non-Build stage may hold."""
    decoy = type(rule_model)()
    decoy.CopyFrom(rule_model)
    decoy.graph[0].op.append(op_def("inserted_by_a_later_pass", "Cast", original_names=[]))
    return decoy


def test_build_stage_wins_and_runs_compare_through_it(tree, tmp_path: Path) -> None:
    rule = opdiff.read_graph(tree.rule)
    model = model_def_from_fusion_map(rule)
    rules = tmp_path / "rules"
    write_ge_graph_dumps(rules, _decoy(model), stages=("AfterInsertEventNodes", "FeGraphFusionAfter"))
    write_ge_graph_dumps(rules, model, stages=("Build",), first_number=7)
    (rules / "notes.txt").write_text("not a graph dump\n")
    files = [p.name for p in rule_files(rules)]
    assert files == [f"ge_proto_0000000{n}_{stage}.txt" for n, stage in ((0, "AfterInsertEventNodes"), (1, "FeGraphFusionAfter"), (7, "Build"))]
    assert read_rules(rules).for_model(tree.model).rule == rule
    summary = compare_runs(RunsRequest(str(tree.root), str(tree.golden), CompareOptions(fusion_rule=rules)), tmp_path / "out")
    assert [run.status for run in summary.runs] == [RunStatus.COMPARED, RunStatus.COMPARED]
    through_json = compare_runs(RunsRequest(str(tree.root), str(tree.golden), CompareOptions(fusion_rule=tree.rule)), tmp_path / "json")
    assert [run.compared for run in summary.runs] == [run.compared for run in through_json.runs]


def test_a_graph_in_two_stages_without_build_is_an_error_listing_both(tree, tmp_path: Path) -> None:
    model = model_def_from_fusion_map(opdiff.read_graph(tree.rule))
    rules = tmp_path / "rules"
    write_ge_graph_dumps(rules, model, stages=("AfterInsertEventNodes",))
    write_ge_graph_dumps(rules, _decoy(model), stages=("afterUBMatch",), first_number=3)
    choice = read_rules(rules).for_model(tree.model)
    assert choice.rule is None
    assert "ge_proto_00000000_AfterInsertEventNodes.txt (stage AfterInsertEventNodes)" in choice.reason
    assert "ge_proto_00000003_afterUBMatch.txt (stage afterUBMatch)" in choice.reason
    summary = compare_runs(RunsRequest(str(tree.root), str(tree.golden), CompareOptions(fusion_rule=rules)), tmp_path / "out")
    assert {run.status for run in summary.runs} == {RunStatus.NOT_COMPARED}
    assert all("2 fusion rules" in run.reason for run in summary.runs)


def test_many_graphs_per_step_each_model_picks_its_own(tree, tmp_path: Path) -> None:
    rule = opdiff.read_graph(tree.rule)
    model = model_def_from_fusion_map(rule)
    other = _decoy(model)
    other.graph[0].name = "ge_default_20230713074122_2"
    rules = tmp_path / "rules"
    write_ge_graph_dumps(rules, model, stages=("Build",), graph_id=1)
    write_ge_graph_dumps(rules, other, stages=("Build",), first_number=1, graph_id=2)
    shutil.copy(tree.rule, rules / "unrelated.json")  # an atc JSON beside them answers to the same name
    found = read_rules(rules)
    assert found.for_model("ge_default_20230713074122_2").rule == opdiff.read_graph(rules / "ge_proto_00000001_Build.txt")
    assert found.for_model(tree.model).rule is None  # the JSON and the Build dump: which one is not clear
    assert "unrelated.json" in found.for_model(tree.model).reason

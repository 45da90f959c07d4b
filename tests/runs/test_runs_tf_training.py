"""The NPU side of a TensorFlow training run (docs/compare-differences.md, docs/many-runs.md): a
device tree with three graphs per step, a folder of GE graph dumps (or atc JSONs) as the rules, each
model folder taking the graph of its name (the training graph's by its trailing number, its dump
folder a second later, with a warning), and a golden of numbered steps, each run meeting the golden
step of its own number. Data by tests.support.tf_training_tree."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from opdiff.engine.options import CompareOptions
from opdiff.results.runs_summary import RunStatus
from opdiff.runs import RunsRequest, compare_runs
from opdiff.runs.rules import read_rules
from opdiff.runs.tree import view_side
from tests.support.many_runs import opdiff_cli
from tests.support.tf_training_tree import FAULTY, SHIFTED, TRAIN, TrainingTree, write_training_tree


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> TrainingTree:
    return write_training_tree(tmp_path_factory.mktemp("training"))


@pytest.fixture(scope="module")
def cli_out(tree, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    done = opdiff_cli(tree.root.parent, "compare", "-m", tree.root.name, "-g", "golden", "-f", "rules", "-advisor",
                      "-out", str(out), "--no-progress")
    return done, out


def _rows(path: Path) -> list:
    with path.open(newline="") as stream:
        return list(csv.DictReader(stream))


def test_every_graph_and_step_is_a_run_against_the_golden_step_of_its_number(cli_out, tree):
    done, out = cli_out
    assert done.returncode == 0, done.stdout + done.stderr
    labels = sorted(path.name.split("_result_")[0] for path in out.glob("*_result_*.csv"))
    assert labels == sorted(f"0_{folder}_{step}" for folder in tree.folders.values() for step in tree.steps)
    for path in out.glob("*_result_*.csv"):
        failing = {row["TensorIndex"] for row in _rows(path) if row["CosineSimilarity"] not in ("NaN", "")
                   and float(row["CosineSimilarity"]) < 0.99}
        expected = {f"{FAULTY}:output:0", "GradientDescent/update_dense_1/kernel/ApplyGradientDescent:input:2"}
        assert failing == (expected if SHIFTED in path.name else set()), path.name  # golden steps differ: a wrong pairing fails all


def test_the_advisor_names_the_faulty_gradient_op(cli_out, tree):
    _, out = cli_out
    for step in tree.steps:
        (summary,) = out.glob(f"0_{SHIFTED}_{step}_advisor_summary.txt")
        text = summary.read_text()
        assert "Detection Type: culprit op" in text and f"Expert Advice: {FAULTY} receives inputs that match" in text


def test_every_forward_and_backward_op_the_rule_maps_is_matched(cli_out, tree):
    _, out = cli_out
    for graph, ops in tree.mapped.items():
        for path in out.glob(f"0_{tree.folders[graph]}_*_result_*.csv"):
            compared = {row["TensorIndex"].split(":")[0] for row in _rows(path) if row["CosineSimilarity"] not in ("NaN", "")}
            assert set(ops) <= compared, (path.name, set(ops) - compared)
    assert any(op.startswith("gradients/") for op in tree.mapped[TRAIN])


def test_a_graph_matched_by_its_trailing_number_only_is_warned_of(cli_out, tree):
    done, _ = cli_out
    warning = " ".join(done.stderr.split())
    assert f"warning: model {SHIFTED}: no graph of that name" in warning and "the result may be incorrect" in warning
    choice = read_rules(tree.rules).for_model(SHIFTED)
    assert choice.rule is not None and choice.rule.graphs == (TRAIN,)
    assert read_rules(tree.rules).for_model(TRAIN).warning is None


def test_a_golden_of_numbered_steps_is_one_folder_per_step(tree):
    view = view_side(str(tree.golden), None)
    assert [step for step, _ in view.steps] == [0, 5, 10] and not view.is_tree and view.single is None
    assert [step for step, _ in view_side(str(tree.golden), 5).steps] == [5]


def test_a_step_the_golden_lacks_is_a_run_not_compared(tree, tmp_path):
    golden = tmp_path / "golden"
    shutil.copytree(tree.golden / "0", golden / "0")
    shutil.copytree(tree.golden / "5", golden / "5")
    summary = compare_runs(RunsRequest(str(tree.root), str(golden), CompareOptions(fusion_rule=tree.rules)), tmp_path / "out")
    by_step = {(run.model, run.step): run for run in summary.runs}
    assert {run.status for (_, step), run in by_step.items() if step != 10} == {RunStatus.COMPARED}
    assert all(run.reason == "no golden step 10 (the golden's steps: 0, 5)" for (_, step), run in by_step.items() if step == 10)
    assert len(summary.warnings) == 1 and SHIFTED in summary.warnings[0]


def test_a_folder_of_atc_jsons_serves_as_well(tmp_path):
    tree = write_training_tree(tmp_path, steps=(0, 5), rule_form="json")
    assert sorted(path.suffix for path in tree.rules.iterdir()) == [".json"] * 3
    summary = compare_runs(RunsRequest(str(tree.root), str(tree.golden), CompareOptions(fusion_rule=tree.rules, step=5)),
                           tmp_path / "out")
    assert sorted((run.model, run.step, run.status) for run in summary.runs) == sorted(
        (folder, 5, RunStatus.COMPARED) for folder in tree.folders.values())
    assert [run.first_failure.op for run in summary.failing] == [FAULTY]



def test_one_step_folder_meets_the_golden_step_of_its_number(tree, tmp_path):
    step_folder = tree.step_folder(TRAIN, 5)
    done = opdiff_cli(tree.root.parent, "compare", "-m", str(step_folder), "-g", "golden", "-f",
                      str(tree.rules / "ge_proto_00000001_Build.txt"), "-out", str(tmp_path), "--no-progress")
    assert done.returncode == 0, done.stdout + done.stderr
    (path,) = tmp_path.glob(f"0_{SHIFTED}_5_result_*.csv")
    failing = {row["TensorIndex"] for row in _rows(path) if row["CosineSimilarity"] not in ("NaN", "")
               and float(row["CosineSimilarity"]) < 0.99}
    assert failing == {f"{FAULTY}:output:0", "GradientDescent/update_dense_1/kernel/ApplyGradientDescent:input:2"}


def test_a_folder_of_ge_onnx_dumps_alone_serves_as_well(tree, tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    for path in tree.rules.glob("ge_onnx_*.pbtxt"):
        shutil.copy(path, rules / path.name)
    summary = compare_runs(RunsRequest(str(tree.root), str(tree.golden), CompareOptions(fusion_rule=rules, step=10)),
                           tmp_path / "out")
    assert {run.status for run in summary.runs} == {RunStatus.COMPARED} and len(summary.runs) == 3
    assert [run.first_failure.op for run in summary.failing] == [FAULTY]

"""Many runs of a dump tree on this machine: discovery, pairing, rule folders, one CSV per run with
the reference's batch-mode name, and the summary across runs."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import jsonschema
import pytest

from opdiff.cli import main
from opdiff.commands.exit_codes import ExitCode
from opdiff.conventions.dump_names import escape_op_name
from opdiff.engine.options import CompareOptions
from opdiff.report.runs.json_writer import load_schema
from opdiff.results.runs_summary import RunStatus
from opdiff.runs import RunsRequest, compare_runs
from tests.support.dump_tree import MODEL_ID, Fault, write_dump_tree

FAULT = Fault(device=1, step=1, op="block2/conv1")


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return write_dump_tree(tmp_path_factory.mktemp("tree"), devices=(0, 1), steps=(0, 1), fault=FAULT)


def _summary(out: Path) -> dict:
    (path,) = out.glob("summary_*.json")
    return json.loads(path.read_text())


def test_tree_of_two_devices_and_two_steps_against_one_golden(tree, tmp_path, monkeypatch):
    monkeypatch.chdir(tree.root.parent)  # relative paths, as a user types them
    out = tmp_path / "out"
    code = main(["compare", "-m", tree.root.name, "-g", "golden", "-f", tree.rule.name, "-out", str(out)])
    assert code == ExitCode.OK
    summary = _summary(out)
    jsonschema.validate(summary, load_schema())
    runs = {(run["device"], run["model"], run["step"]): run for run in summary["runs"]}
    assert sorted(runs) == [(d, "demo_net", s) for d in ("0", "1") for s in (0, 1)]
    faulty = runs[("1", "demo_net", 1)]
    assert faulty["first_failure"]["op"] == tree.fused_op_of(FAULT.op)
    assert faulty["first_failure"]["tensor"] == f"{tree.fused_op_of(FAULT.op)}:output:0"
    assert [key for key, run in runs.items() if run["failed"]] == [("1", "demo_net", 1)]
    assert all(run["first_failure"] is None for key, run in runs.items() if key != ("1", "demo_net", 1))
    assert summary["complete"] and all(run["compared"] == 23 for run in runs.values())
    # Per tensor across runs: the faulty op's output fails in one run of four, and breaks first there.
    tensors = {t["tensor"]: t for t in summary["tensors"]}
    first = tensors[faulty["first_failure"]["tensor"]]
    assert (first["runs_failing"], first["runs_compared"], first["first_failure_in"]) == (1, 4, ["1_demo_net_1"])
    cosine = first["metrics"]["CosineSimilarity"]
    assert cosine["worst"] < 0.999 < cosine["median"] and cosine["best"] >= cosine["median"]

    # One CSV per run, named as the reference's batch mode, with the rows of a single-run compare.
    csvs = sorted(path.name for path in out.glob("*.csv"))
    ts = summary["runs"][0]["csv"].rsplit("_", 1)[1][: -len(".csv")]
    assert csvs == [f"{d}_demo_net_{s}_result_{ts}.csv" for d in (0, 1) for s in (0, 1)]
    for (device, _, step), run in runs.items():
        single = tmp_path / f"single_{device}_{step}"
        assert main(["compare", "-m", str(tree.run_folder(int(device), step)), "-g", "golden", "-f", tree.rule.name,
                     "-out", str(single)]) == ExitCode.OK
        (single_csv,) = single.glob("result_*.csv")
        assert (out / run["csv"]).read_bytes() == single_csv.read_bytes()


def test_fail_gives_exit_3_and_a_model_level_folder_means_every_run_below(tree, tmp_path):
    model = tree.root / "1" / "demo_net"
    out = tmp_path / "out"
    assert main(["compare", "-m", str(model), "-g", str(tree.golden), "-f", str(tree.rule), "-out", str(out),
                 "--fail"]) == ExitCode.THRESHOLDS
    assert [(r["device"], r["step"], r["failed"] > 0) for r in _summary(out)["runs"]] == [("1", 0, False), ("1", 1, True)]


def test_step_restricts_a_tree_and_a_model_id_folder_keeps_one_run(tree, tmp_path):
    summary = compare_runs(RunsRequest(str(tree.root), str(tree.golden), CompareOptions(fusion_rule=tree.rule, step=1)), tmp_path / "a")
    assert [run.label for run in summary.runs] == ["0_demo_net_1", "1_demo_net_1"]
    one = compare_runs(RunsRequest(str(tree.root / "0" / "demo_net" / MODEL_ID), str(tree.golden), CompareOptions(fusion_rule=tree.rule)), tmp_path / "b")
    assert [run.label for run in one.runs] == ["0_demo_net_1"]  # the newest step, as one comparison takes it


def test_two_trees_pair_by_device_model_and_step(tree, tmp_path):
    golden_tree = write_dump_tree(tmp_path / "old", devices=(0, 1), steps=(0,), golden=False)
    summary = compare_runs(RunsRequest(str(tree.root), str(golden_tree.root)), tmp_path / "out")
    by_label = {run.label: run for run in summary.runs}
    assert by_label["0_demo_net_0"].status is RunStatus.COMPARED and by_label["0_demo_net_0"].failed == 0
    assert by_label["1_demo_net_1"].status is RunStatus.NOT_COMPARED
    assert "no golden run for device 1, model demo_net, step 1" in by_label["1_demo_net_1"].reason
    assert summary.complete and len(summary.compared) == 2


def test_golden_one_run_of_the_tree_checks_consistency(tree, tmp_path):
    summary = compare_runs(RunsRequest(str(tree.root), str(tree.run_folder(0, 0))), tmp_path / "out")
    assert [run.label for run in summary.failing] == ["1_demo_net_1"]
    # NPU against NPU, ops go by their file names (escaped)
    assert summary.run("1_demo_net_1").first_failure.op == escape_op_name(tree.fused_op_of(FAULT.op))


def test_a_folder_of_rules_matches_models_and_a_model_without_one_is_a_line(tree, tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    shutil.copy(tree.rule, rules / "any_name.json")  # matched by the graph name inside, as the reference does
    other = tmp_path / "two"
    shutil.copytree(tree.root, other / tree.root.name)
    os.rename(other / tree.root.name / "1" / "demo_net", other / tree.root.name / "1" / "other_net")
    summary = compare_runs(RunsRequest(str(other / tree.root.name), str(tree.golden), CompareOptions(fusion_rule=rules)), tmp_path / "out")
    by_label = {run.label: run for run in summary.runs}
    assert by_label["0_demo_net_0"].status is RunStatus.COMPARED
    assert by_label["1_other_net_1"].status is RunStatus.NOT_COMPARED
    assert by_label["1_other_net_1"].reason == f"no fusion rule for model other_net in {rules}"
    assert len(list((tmp_path / "out").glob("*_result_*.csv"))) == 2


def test_bad_input_names_the_folder(tmp_path, capsys):
    assert main(["compare", "-m", str(tmp_path / "nothing"), "-g", str(tmp_path), "--scheduler", ""]) == ExitCode.BAD_INPUT
    assert "nothing: no such file or folder" in capsys.readouterr().err


def test_ctrl_c_keeps_finished_csvs_whole_and_marks_the_summary_incomplete(tree, tmp_path):
    out = tmp_path / "out"
    heard = []

    def interrupt_after_two(entry):  # Ctrl-C while the client handles the second finished run
        heard.append(entry.label)
        if len(heard) == 2:
            raise KeyboardInterrupt

    summary = compare_runs(RunsRequest(str(tree.root), str(tree.golden), CompareOptions(fusion_rule=tree.rule)), out, on_run=interrupt_after_two)
    assert not summary.complete and summary.end.value == "interrupted"
    assert [run.label for run in summary.missing] == ["1_demo_net_0", "1_demo_net_1"]
    saved = _summary(out)
    jsonschema.validate(saved, load_schema())  # an incomplete summary, runs missing
    assert saved["complete"] is False and saved["missing"] == ["1_demo_net_0", "1_demo_net_1"]
    assert sorted(path.name.split("_result_")[0] for path in out.glob("*.csv")) == ["0_demo_net_0", "0_demo_net_1"]
    assert not list(out.glob("*partial*")) and not list(out.glob("*incomplete*"))

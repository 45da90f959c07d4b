"""`--all` (all_occurrences): every dump of an op is compared, not only the newest."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

import opdiff
from opdiff.advisor.tensor_advisor import advise
from opdiff.dumps import Tensor
from tests.compare.test_compare_end_to_end import TS, faulty_channel, write_conv_relu_case
from tests.support.child_env import child_env


def _two_run_case(tmp_path):
    """The conv+relu op dumped twice in one step: run 0 matches the golden, run 1 has a faulty channel."""
    case = write_conv_relu_case(tmp_path, lambda relu: [relu, faulty_channel(relu)])
    return case["npu"], case["golden"], case["rule"]


def test_every_run_against_the_golden(tmp_path):
    npu, golden, rule = _two_run_case(tmp_path)
    newest = opdiff.compare(npu, golden, fusion_rule=rule)
    assert [row.tensor_index for row in newest.rows if row.compared] == [
        "conv1/Conv2D_relu_fused:input:0", "conv1/Conv2D_relu_fused:output:0"]
    assert newest.rows[-1].metrics.cosine_similarity < 0.99  # the newest dump is the faulty run

    report = opdiff.compare(npu, golden, fusion_rule=rule, all_occurrences=True)
    compared = [(row.index, row.tensor_index) for row in report.rows if row.compared]
    assert compared == [
        (1, "conv1/Conv2D_relu_fused#0:input:0"), (1, "conv1/Conv2D_relu_fused#0:output:0"),
        (1, "conv1/Conv2D_relu_fused#1:input:0"), (1, "conv1/Conv2D_relu_fused#1:output:0"),
    ]
    # The op missing from my side (the Data op x) is reported once, not once per run.
    assert sum(1 for row in report.rows if not row.compared) == 1
    by_name = {row.tensor_index: row for row in report.rows}
    assert by_name["conv1/Conv2D_relu_fused#0:output:0"].metrics.cosine_similarity > 0.9999
    assert by_name["conv1/Conv2D_relu_fused#1:output:0"].metrics.cosine_similarity < 0.99
    # The advisor follows the run that fails, and names the op without its run suffix.
    first = advise(report)[0]
    assert first.op == "conv1/Conv2D_relu_fused" and "#1" in first.tensor_index


def test_every_run_npu_against_npu(tmp_path):
    rng = np.random.default_rng(6)
    data = [rng.standard_normal((2, 8)).astype(np.float32) for _ in range(3)]
    for side in ("a", "b"):
        (tmp_path / side).mkdir()
        for run, value in enumerate(data):
            noisy = value if side == "a" else value * (1 + 1e-4 * run)
            opdiff.write_dump(tmp_path / side / f"MatMul.mm.{run}.1.{TS + run}", "mm", outputs=[Tensor(noisy)])
    report = opdiff.compare(tmp_path / "a", tmp_path / "b", all_occurrences=True)
    assert [row.tensor_index for row in report.rows] == ["mm#0:output:0", "mm#1:output:0", "mm#2:output:0"]
    assert [row.index for row in report.rows] == [0, 0, 0]
    errors = [row.metrics.max_relative_error for row in report.rows]
    assert errors[0] == 0 and 0 < errors[1] < errors[2]  # run k is paired with run k, not with the newest


def test_cli_all_flag(tmp_path):
    npu, golden, rule = _two_run_case(tmp_path)
    out = subprocess.run([sys.executable, "-m", "opdiff", "compare", "-m", str(npu), "-g", str(golden), "-f", str(rule),
                          "-out", str(tmp_path / "out"), "--all"], capture_output=True, text=True, env=child_env(COLUMNS="200"))
    assert out.returncode == 0, out.stderr
    (result,) = (tmp_path / "out").glob("result_*.csv")
    text = result.read_text()
    assert "conv1/Conv2D_relu_fused#0:output:0" in text and "conv1/Conv2D_relu_fused#1:output:0" in text



def test_report_counts_the_dumps_it_leaves_out(tmp_path):
    npu, golden, rule = _two_run_case(tmp_path)
    opdiff.write_dump(npu / f"Add.not_in_model.9.1.{TS + 300}", "not_in_model", outputs=[Tensor(np.ones(4, np.float32))])
    notes = opdiff.compare(npu, golden, fusion_rule=rule).notes
    assert "1 dump file(s) of ops that the fusion rule does not name were not compared" in notes
    assert any(note.startswith("1 older dump file(s) of compared ops") for note in notes)
    every_run = opdiff.compare(npu, golden, fusion_rule=rule, all_occurrences=True).notes
    assert not any("older dump" in note for note in every_run)


def test_console_report_shows_what_was_left_out(tmp_path):
    from rich.console import Console

    from opdiff.report.tensor.console import print_report

    npu, golden, rule = _two_run_case(tmp_path)
    (npu / "notes.txt").write_text("not a dump")
    console = Console(record=True, width=200)
    print_report(opdiff.compare(npu, golden, fusion_rule=rule), console)
    text = console.export_text()
    assert "note: 1 older dump file(s) of compared ops were not compared" in text
    assert "note: 1 file(s) skipped by name" in text

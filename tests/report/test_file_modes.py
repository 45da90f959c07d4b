"""Every file a comparison writes under -out is the owner's alone (0600, in a folder created 0700):
results name a customer's model and its layers. Dumps and golden files are not results."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from opdiff.demo.report import write_case
from opdiff.demo.statistics_network import write_statistics_case
from tests.support.child_env import child_env

pytest.importorskip("xlsxwriter", reason="the xlsx report needs xlsxwriter (the xlsx extra)")


def compare(my: Path, golden: Path, rule: Path, out: Path, *extra: str) -> None:
    command = [sys.executable, "-m", "opdiff", "compare", "-m", str(my), "-g", str(golden), "-f", str(rule), "-out", str(out),
               *extra]
    run = subprocess.run(command, capture_output=True, text=True, env=child_env(COLUMNS="200"), timeout=300)
    assert run.returncode == 0, run.stderr


def modes(folder: Path) -> List[str]:
    return sorted(f"{path.name} {stat.S_IMODE(path.stat().st_mode):o}" for path in folder.iterdir())


def test_every_result_of_a_tensor_comparison_is_0600(tmp_path: Path) -> None:
    case = write_case(tmp_path / "case", seed=0, fault="block2/conv1", fault_scale=1.5)
    out = tmp_path / "out"
    compare(case["npu"], case["golden"], case["rule"], out, "--report", "csv,json,html,xlsx", "-advisor")
    compare(case["npu"], case["golden"], case["rule"], out, "-map")
    written = modes(out)
    kinds = {line.split()[0].rsplit(".", 1)[-1] for line in written}
    assert {"csv", "json", "html", "xlsx", "txt"} <= kinds, written
    assert all(line.endswith(" 600") for line in written), written
    assert stat.S_IMODE(out.stat().st_mode) == 0o700


def test_every_result_of_a_statistics_comparison_is_0600(tmp_path: Path) -> None:
    case = write_statistics_case(tmp_path / "case", fault_from=3)
    out = tmp_path / "out"
    compare(case.npu, case.golden, case.rule, out, "--report", "json,html", "-advisor")
    written = modes(out)
    assert len(written) == 4 and all(line.endswith(" 600") for line in written), written

"""-ffts: FFTS+ against FFTS+ with manual-mode slices compared slice by slice (the reference's
meaning: the op names are taken as written, so op_lxsliceN is an op of its own), and checked
against the reference as a black box where it is installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import opdiff
from tests.support.paths import ROOT
from tests.support.side_by_side_cases import Case, ffts_manual_case


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return ffts_manual_case(tmp_path_factory.mktemp("ffts") / "case")


def test_slices_are_one_op_without_ffts(case: Case) -> None:
    report = opdiff.compare(case.my, case.golden)
    assert sorted({row.npu_dump for row in report.rows}) == ["conv1", "relu"]


def test_ffts_compares_each_slice_with_its_namesake(case: Case) -> None:
    report = opdiff.compare(case.my, case.golden, ffts=True)
    outputs = {row.npu_dump: row for row in report.rows if row.tensor.role == "output"}
    assert sorted(outputs) == ["conv1_lxslice0", "conv1_lxslice1", "relu"]
    assert outputs["conv1_lxslice0"].metrics is not None and outputs["conv1_lxslice0"].metrics.max_absolute_error == 0
    assert outputs["conv1_lxslice1"].metrics is not None and outputs["conv1_lxslice1"].metrics.max_absolute_error > 0


def test_ffts_flag_and_the_reference_agree(case: Case, tmp_path: Path) -> None:
    """The bench's cross-check, run as a black box (it skips without the reference and its parser)."""
    venvs = [venv for venv in (Path("/work/venv-ref"), Path("/tmp/ref")) if list(venv.glob("lib/python*/site-packages/msprobe/msaccucmp"))]
    library = ROOT / "bench" / "reference_tool" / "build" / "libascend_dump_parser.so"
    if not venvs or not library.exists():
        pytest.skip("needs mindstudio-probe in /work/venv-ref or /tmp/ref and bench/reference_tool/build.sh's parser")
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "crosscheck_reference_ffts.py"), "--reference-venv", str(venvs[0])],
                          capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "-ffts: rows opdiff/reference 5/5, 5 matched, columns same, 0 unexplained" in done.stdout.replace("\n", " ")

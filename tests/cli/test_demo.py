import csv
import subprocess
import sys
from pathlib import Path

import pytest

import opdiff
from tests.support.child_env import child_env


def test_demo_finds_the_injected_fault(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "opdiff", "demo", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        env=child_env(COLUMNS="200", PATH=""),
    )
    assert "first failing tensor in execution order: block2/relu1_fused:output:0" in out.stdout
    assert len(list((tmp_path / "golden").glob("*.npy"))) == 21
    dumps = sorted((tmp_path / "npu").iterdir())
    assert len(dumps) == 11  # 20 framework ops, conv+bn(+relu) chains fused
    conv = opdiff.read_dump(next(p for p in dumps if ".stem_relu_fused." in p.name))
    assert conv.outputs[0].format_name == "NC1HWC0" and conv.outputs[0].dtype == "float16"
    assert len(opdiff.read_graph(tmp_path / "model.json").ops) == 12  # and the Data op
    (result,) = tmp_path.glob("result_*.csv")
    rows = list(csv.reader(result.open()))
    assert len(rows) == 1 + 24
    assert not list(tmp_path.rglob("*.partial"))


@pytest.mark.cli_output
def test_demo_with_an_unknown_fault_op_is_a_clear_error(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "opdiff", "demo", "--dir", str(tmp_path), "--fault", "nope"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and "no op named 'nope'" in out.stdout

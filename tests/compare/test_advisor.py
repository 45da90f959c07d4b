"""The advisor on generated networks whose culprit is known."""

from pathlib import Path
from typing import Callable, Optional

import numpy as np
import pytest

import opdiff
from opdiff.advisor.tensor_advisor import advise
from opdiff.dumps import Tensor
from opdiff.graph import OutputDesc, write_atc_json
from opdiff.graph.grouping import build_fusion_map
from opdiff.graph.provenance import make_op
from opdiff.results.findings import FindingKind
from opdiff.results.verdict import REFERENCE_THRESHOLDS, ThresholdVerdict
from tests.support.child_env import child_env

TS = 1700000000000000
SHAPE = (1, 16, 8, 8)


def make_chain(tmp: Path, ops: int, error_of: Callable[[int], float], input_error: float = 1e-4,
               overflow_at: Optional[int] = None):
    """x -> op1 -> ... -> opN. Op i's device output is its golden output with relative error
    error_of(i); each op's device input is the previous op's device output."""
    rng = np.random.default_rng(7)
    names = ["x"] + [f"op{i}" for i in range(1, ops + 1)]
    fm_ops = [make_op("x", "Data", id_=0, output_descs=[OutputDesc("x", 0, "NCHW", SHAPE)])]
    for i in range(1, ops + 1):
        fm_ops.append(make_op(names[i], "Conv2D", id_=i, inputs=[f"{names[i - 1]}:0"],
                              output_descs=[OutputDesc(names[i], 0, "NCHW", SHAPE)]))
    rule = write_atc_json(build_fusion_map("chain", [("g", fm_ops)]), tmp / "chain.json")
    golden_dir, npu_dir = tmp / "golden", tmp / "npu"
    golden_dir.mkdir()
    npu_dir.mkdir()
    golden = {name: rng.standard_normal(SHAPE).astype(np.float32) for name in names}
    for name, value in golden.items():
        np.save(golden_dir / f"{name}.0.{TS}.npy", value)

    def off(value: np.ndarray, error: float) -> np.ndarray:
        return (value * (1 + error * rng.standard_normal(value.shape))).astype(np.float32)

    device = {"x": off(golden["x"], input_error)}
    for i in range(1, ops + 1):
        device[names[i]] = off(golden[names[i]], error_of(i))
        if i == overflow_at:
            device[names[i]][0, 0, 0, :4] = 1e6  # beyond fp16's range: stored as Inf
        opdiff.write_dump(npu_dir / f"Conv2D.{names[i]}.{i}.1.{TS + i}", names[i],
                          inputs=[Tensor(device[names[i - 1]], layout="NC1HWC0", dtype="float16")],
                          outputs=[Tensor(device[names[i]], layout="NC1HWC0", dtype="float16")])
    fm = opdiff.read_graph(rule)
    return opdiff.compare(npu_dir, golden_dir, fusion_rule=fm), fm


def kinds(findings):
    return [f.kind for f in findings]


def test_single_faulty_op_deep_in_the_graph_is_the_culprit(tmp_path):
    report, fm = make_chain(tmp_path, 12, lambda i: 0.4 if i == 9 else 1e-3)
    findings = advise(report, fm)
    culprit = next(f for f in findings if f.kind is FindingKind.CULPRIT)
    assert culprit.op == "op9" and culprit.tensor_index == "op9:output:0"
    assert FindingKind.INPUT_MISMATCH not in kinds(findings)


def test_error_injected_in_the_model_input(tmp_path):
    report, fm = make_chain(tmp_path, 6, lambda i: 1e-3, input_error=0.5)
    findings = advise(report, fm)
    assert findings[0].kind is FindingKind.INPUT_MISMATCH
    assert findings[0].op == "op1" and findings[0].tensor_index == "op1:input:0"


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")  # the overflow is the point
def test_fp16_overflow_is_found_where_it_appears(tmp_path):
    report, fm = make_chain(tmp_path, 8, lambda i: 1e-3, overflow_at=5)
    overflow = next(f for f in advise(report, fm) if f.kind is FindingKind.OVERFLOW)
    assert overflow.op == "op5" and overflow.tensor_index == "op5:output:0"


def test_accumulated_drift_has_no_single_culprit(tmp_path):
    # Error grows 20% per op from 1%. The default verdict fails op1 already (1% is well past fp16
    # rounding, on a clean input: a culprit); the reference's cosine >= 0.99 lets the error creep up
    # until op19, where no single op stands out.
    report, fm = make_chain(tmp_path, 20, lambda i: 0.01 * 1.2**i)
    assert [f.op for f in advise(report, fm) if f.kind is FindingKind.CULPRIT] == ["op1"]
    reference = ThresholdVerdict(REFERENCE_THRESHOLDS, name="reference")
    findings = advise(report, fm, verdict=reference)
    assert FindingKind.CULPRIT not in kinds(findings)
    drift = next(f for f in findings if f.kind is FindingKind.ACCUMULATED_DRIFT)
    failing_first = report.first_failure(reference)
    assert drift.tensor_index == failing_first.tensor_index
    assert findings[-1].kind is FindingKind.VERDICT and "reaches the model outputs" in findings[-1].advice


def test_all_clear_verdict(tmp_path):
    report, fm = make_chain(tmp_path, 4, lambda i: 1e-3)
    findings = advise(report, fm)
    assert kinds(findings) == [FindingKind.VERDICT]
    assert "matches the golden" in findings[0].advice


def test_ignored_ops_stay_out_of_the_verdict(tmp_path):
    report, fm = make_chain(tmp_path, 6, lambda i: 0.4 if i == 3 else 1e-3)
    assert any(f.kind is FindingKind.CULPRIT and f.op == "op3" for f in advise(report, fm))
    assert not any(f.op == "op3" for f in advise(report, fm, ignore_ops=["op3"]))


def test_cli_advisor_prints_findings_and_writes_the_summary(tmp_path):
    import subprocess
    import sys

    make_chain(tmp_path, 8, lambda i: 0.4 if i == 6 else 1e-3)
    out = subprocess.run(
        [sys.executable, "-m", "opdiff", "compare", "-m", str(tmp_path / "npu"), "-g", str(tmp_path / "golden"),
         "-f", str(tmp_path / "chain.json"), "-out", str(tmp_path / "out"), "-advisor"],
        capture_output=True, text=True, env=child_env(COLUMNS="200", PATH=""),
    )
    assert out.returncode == 0, out.stderr
    assert "culprit op: op6 (op6:output:0" in out.stdout
    summary = (tmp_path / "out" / "advisor_summary.txt").read_text().splitlines()
    assert summary[0] == "Detection Type: culprit op" and summary[1] == "Operator Index: 6"
    (result,) = (tmp_path / "out").glob("result_*.csv")
    assert "OverFlow" in result.read_text().splitlines()[0]  # -advisor turns on overflow detection


def test_culprit_with_exactly_matching_inputs_says_so(tmp_path):
    """NPU vs NPU, the inputs identical: the evidence says they match, not that the error grows "inf"x."""
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(SHAPE).astype(np.float32), rng.standard_normal(SHAPE).astype(np.float32)
    for side, out in (("a", y), ("b", -y)):
        (tmp_path / side).mkdir()
        opdiff.write_dump(tmp_path / side / f"Conv2D.conv.1.1.{TS}", "conv", inputs=[Tensor(x)], outputs=[Tensor(out)])
    (culprit,) = [f for f in advise(opdiff.compare(tmp_path / "a", tmp_path / "b")) if f.kind is FindingKind.CULPRIT]
    assert "its inputs match the golden exactly" in culprit.evidence and "inf" not in culprit.evidence

"""End-to-end comparisons on data made by the project's writers."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, List, Sequence

import numpy as np
import pytest

import opdiff
from opdiff.dumps import Tensor
from tests.support.child_env import child_env

TS = 1700000000000001


def attr_s(key: str, value: str) -> dict:
    return {"key": key, "value": {"s": value}}


def attr_list_s(key: str, values: List[str]) -> dict:
    return {"key": key, "value": {"list": {"s": values, "val_type": 1}}}


def output_desc(origin: str, index: int, shape: List[int], fmt: str = "NCHW") -> dict:
    return {"dtype": "DT_FLOAT16", "attr": [
        attr_s("_datadump_origin_name", origin),
        {"key": "_datadump_origin_output_index", "value": {"i": index}},
        attr_s("_datadump_origin_format", fmt),
        {"key": "origin_shape", "value": {"list": {"i": shape, "val_type": 2}}},
    ]}


def conv_relu_rule() -> dict:
    """The example of docs/reference/reference-tool.md §3.7: a Data op and a conv+relu fused op."""
    return {"graph": [{"name": "ge_default_1", "op": [
        {"name": "x", "type": "Data", "id": 0, "attr": [attr_list_s("_datadump_original_op_names", ["x"])],
         "output_desc": [output_desc("x", 0, [1, 3, 8, 8])]},
        {"name": "conv1/Conv2D_relu_fused", "type": "Conv2D", "id": 1, "input": ["x:0", "x:-1"],
         "attr": [attr_list_s("_datadump_original_op_names", ["conv1/Conv2D", "conv1/Relu"])],
         "output_desc": [output_desc("conv1/Relu", 0, [1, 16, 8, 8])]},
    ]}]}


def faulty_channel(value: np.ndarray) -> np.ndarray:
    """`value` with one channel wrong, as on a faulty device."""
    out = value.copy()
    out[0, 5] *= 4.0
    return out


def write_conv_relu_case(tmp_path: Path, device_runs: Callable[[np.ndarray], Sequence[np.ndarray]]) -> Dict[str, Path]:
    """The conv+relu example on disk: golden .npy files, the fusion rule, and one NPU dump of the fused
    op per output `device_runs(golden relu output)` returns (run k at timestamp TS + k)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    relu = np.maximum(rng.standard_normal((1, 16, 8, 8)), 0).astype(np.float32)
    golden, npu = tmp_path / "golden", tmp_path / "npu"
    golden.mkdir()
    npu.mkdir()
    np.save(golden / f"x.0.{TS}.npy", x)
    np.save(golden / f"conv1_Relu.0.{TS}.npy", relu)
    np.save(golden / f"conv1_Conv2D.0.{TS}.npy", relu)
    for k, output in enumerate(device_runs(relu)):
        opdiff.write_dump(
            npu / f"Conv2D.conv1_Conv2D_relu_fused.{5 + k}.1.{TS + k}", "conv1/Conv2D_relu_fused",
            inputs=[Tensor(x, layout="NC1HWC0", dtype="float16")],
            outputs=[Tensor(output, layout="NC1HWC0", dtype="float16")],
        )
    rule = tmp_path / "model.json"
    rule.write_text(json.dumps(conv_relu_rule()))
    return {"golden": golden, "npu": npu, "rule": rule, "out": tmp_path / "out"}


@pytest.fixture
def conv_relu_case(tmp_path: Path) -> Dict[str, Path]:
    return write_conv_relu_case(tmp_path, lambda relu: [faulty_channel(relu)])


def test_npu_vs_golden_with_fusion_rule(conv_relu_case):
    report = opdiff.compare(conv_relu_case["npu"], conv_relu_case["golden"], fusion_rule=conv_relu_case["rule"])
    assert report.scenario is opdiff.results.scenario.Scenario.NPU_VS_GOLDEN
    rows = report.rows
    assert [row.index for row in rows] == [0, 1, 1]
    missing, conv_in, conv_out = rows
    assert not missing.compared and "There is no dump file for my output operator" in missing.reasons[0]
    assert conv_in.tensor_index == "conv1/Conv2D_relu_fused:input:0"
    assert conv_in.ground_truth == "conv1/Conv2D,conv1/Relu"
    assert conv_in.shape == (1, 3, 8, 8)  # NC1HWC0 laid out as the golden NCHW, padding removed
    assert conv_in.metrics.cosine_similarity > 0.99999
    assert conv_out.metrics.count == 16 * 64
    assert conv_out.metrics.cosine_similarity < 0.99  # the faulty channel
    assert report.first_failure().tensor_index == "conv1/Conv2D_relu_fused:output:0"
    # Compared rows equal those the constructor builds from their fields.
    import dataclasses

    from opdiff.results.rows import CompareRow
    for row in rows:
        assert row == CompareRow(**{f.name: getattr(row, f.name) for f in dataclasses.fields(CompareRow)})


def test_cli_writes_the_reference_csv_and_reports(conv_relu_case):
    out = subprocess.run(
        [sys.executable, "-m", "opdiff", "compare", "-m", str(conv_relu_case["npu"]), "-g", str(conv_relu_case["golden"]),
         "-f", str(conv_relu_case["rule"]), "-out", str(conv_relu_case["out"]), "--fail-under", "CosineSimilarity=0.99"],
        capture_output=True, text=True, env=child_env(COLUMNS="160", PATH=""),
    )
    assert out.returncode == 3, out.stderr  # the threshold is violated by the faulty output
    assert "first failing tensor in execution order: conv1/Conv2D_relu_fused:output:0" in out.stdout
    (result,) = conv_relu_case["out"].glob("result_*.csv")
    rows = list(csv.reader(result.open()))
    assert rows[0][:9] == ["Index", "OpType", "NPUDump", "DataType", "Address", "GroundTruth", "DataType", "TensorIndex", "Shape"]
    assert [r[0] for r in rows[1:]] == ["0", "1", "1"]
    assert rows[2][7] == "conv1/Conv2D_relu_fused:input:0" and rows[2][8] == "[1,3,8,8]"
    assert rows[2][3] == "float16" and rows[2][6] == "float32"


def test_npu_vs_npu_by_op_name(tmp_path):
    rng = np.random.default_rng(1)
    for side, scale in (("a", 1.0), ("b", 1.001)):
        folder = tmp_path / side
        folder.mkdir()
        for i, op in enumerate(["conv", "relu", "pool"]):
            value = rng.standard_normal((1, 20, 4, 4)).astype(np.float32) if side == "a" else None
            np.save(tmp_path / f"{op}.npy", value) if value is not None else None
            data = np.load(tmp_path / f"{op}.npy") * scale
            opdiff.write_dump(folder / f"Op.{op}.{i}.1.{TS + i}", op, outputs=[Tensor(data, layout="NC1HWC0", dtype="float16")])
    (tmp_path / "a" / f"Op.extra.9.1.{TS + 9}").write_bytes((tmp_path / "a" / f"Op.conv.0.1.{TS}").read_bytes())
    report = opdiff.compare(tmp_path / "a", tmp_path / "b")
    assert report.scenario is opdiff.results.scenario.Scenario.NPU_VS_NPU
    assert [row.npu_dump for row in report.rows] == ["conv", "relu", "pool", "extra"]
    assert all(row.metrics.cosine_similarity > 0.9999 for row in report.rows[:3])
    assert not report.rows[3].compared and "no the ground truth dump file" in report.rows[3].reasons[0]


@pytest.mark.cli_output
def test_bad_inputs_are_clear_errors(tmp_path, conv_relu_case):
    with pytest.raises(ValueError, match="no such file or folder"):
        opdiff.compare(tmp_path / "nope", conv_relu_case["golden"])
    with pytest.raises(ValueError, match="needs the fusion rule"):
        opdiff.compare(conv_relu_case["npu"], conv_relu_case["golden"])
    out = subprocess.run([sys.executable, "-m", "opdiff", "compare", "-m", str(tmp_path / "nope"), "-g", "x"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "no such file or folder" in out.stderr


def test_map_writes_the_mapping_without_comparing(conv_relu_case):
    out = subprocess.run(
        [sys.executable, "-m", "opdiff", "compare", "-m", str(conv_relu_case["npu"]), "-g", str(conv_relu_case["golden"]),
         "-f", str(conv_relu_case["rule"]), "-out", str(conv_relu_case["out"]), "-map"],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    (mapping,) = conv_relu_case["out"].glob("mapping_*.csv")
    rows = list(csv.reader(mapping.open()))
    assert rows[0] == ["Index", "OpType", "NPUDump", "GroundTruth", "TensorIndex", "NPUDumpPath", "GroundTruthPath"]
    assert [r[4] for r in rows[1:]] == ["NaN", "conv1/Conv2D_relu_fused:input:0", "conv1/Conv2D_relu_fused:output:0"]
    assert rows[3][6].endswith(f"conv1_Relu.0.{TS}.npy")
    assert not list(conv_relu_case["out"].glob("result_*.csv"))


def test_thresholds_read_the_metric_they_name():
    """Threshold.violated_by reads Metrics fields by name: every reference metric but the standard
    deviation can carry one, and each reads the value reference_values() gives that name; so can
    NormRatioError."""
    from opdiff.results.rows import CompareRow, TensorId
    from opdiff.results.verdict import METRIC_FIELDS, Threshold

    m = opdiff.metrics(np.array([1.0, 2.0, 3.0, 4.0], np.float32), np.array([1.5, 1.0, 3.5, 2.0], np.float32))
    values = {**m.reference_values(), "NormRatioError": m.norm_ratio_error}
    assert set(METRIC_FIELDS) == set(opdiff.ALGORITHMS) - {"StandardDeviation"} | {"NormRatioError"}
    row = CompareRow(0, "Add", "a", "a", TensorId("a", "output", 0), metrics=m)
    for name, field in METRIC_FIELDS.items():
        assert getattr(m, field) == values[name]
        value = values[name]
        above, below = Threshold(name, value * 1.01 + 1e-9), Threshold(name, value * 0.99 - 1e-9)
        higher_is_better = name == "CosineSimilarity"
        assert above.violated_by(row) is higher_is_better and below.violated_by(row) is not higher_is_better

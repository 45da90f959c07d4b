"""Result-CSV cells that follow the reference tool (msaccucmp), found by the black-box cross-check
(bench/crosscheck_reference_compare.py): each test pins one cell the two tools used to disagree on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List

import numpy as np
import pytest

import opdiff
from opdiff.dumps import Tensor
from opdiff.report.tensor.csv_writer import format_row

TS = 1700000000000001


def desc(origin: str, shape: List[int], fmt: str) -> dict:
    attrs = [{"key": "_datadump_origin_format", "value": {"s": fmt}},
             {"key": "origin_shape", "value": {"list": {"i": shape, "val_type": 2}}}]
    if origin:
        attrs += [{"key": "_datadump_origin_name", "value": {"s": origin}},
                  {"key": "_datadump_origin_output_index", "value": {"i": 0}}]
    return {"dtype": "DT_FLOAT16", "attr": attrs}


def op(name: str, type_: str, id_: int, inputs: List[str], originals: List[str], descs: List[dict]) -> dict:
    return {"name": name, "type": type_, "id": id_, "input": inputs, "output_desc": descs,
            "attr": [{"key": "_datadump_original_op_names", "value": {"list": {"s": originals, "val_type": 1}}}]}


@pytest.fixture
def case(tmp_path: Path) -> Dict[str, Path]:
    """Data -> t (originals listed twice, ND) -> conv (NCHW, NC1HWC0 dump) -> zero (all-zero golden)
    -> both0 (both sides zero) -> lone (no golden file, fp16 overflow on the device)."""
    rng = np.random.default_rng(0)
    golden, npu = tmp_path / "golden", tmp_path / "npu"
    golden.mkdir()
    npu.mkdir()
    x = rng.standard_normal((4, 6)).astype(np.float32)
    conv = rng.standard_normal((1, 20, 3, 3)).astype(np.float32)
    np.save(golden / f"x.0.{TS}.npy", x)
    np.save(golden / f"T_0.0.{TS}.npy", x.T.copy())
    np.save(golden / f"conv.0.{TS}.npy", conv)
    np.save(golden / f"zero.0.{TS}.npy", np.zeros(8, np.float32))
    np.save(golden / f"both0.0.{TS}.npy", np.zeros(8, np.float32))
    dumps = [
        ("Transpose", "t", [x, np.arange(2, dtype=np.int32)], [x.T.copy()]),
        ("Conv2D", "conv", [], [Tensor(conv, layout="NC1HWC0", dtype="float16")]),
        ("Mul", "zero", [], [np.ones(8, np.float16)]),
        ("Mul", "both0", [], [np.zeros(8, np.float16)]),
        ("Exp", "lone", [], [np.array([1.0, np.inf], np.float16)]),
    ]
    for task, (type_, name, inputs, outputs) in enumerate(dumps, start=1):
        opdiff.write_dump(npu / f"{type_}.{name}.{task}.1.{TS + task}", name, inputs=inputs, outputs=outputs)
    rule = {"graph": [{"name": "g", "op": [
        op("x", "Data", 0, [], ["x"], [desc("x", [4, 6], "ND")]),
        op("t", "Transpose", 1, ["x:0", "onnx::W_7:0"], ["T_0", "T_0"], [desc("T_0", [6, 4], "ND")]),
        op("conv", "Conv2D", 2, ["t:0"], ["conv"], [desc("conv", [1, 20, 3, 3], "NCHW")]),
        op("zero", "Mul", 3, ["conv:0"], ["zero"], [desc("zero", [8], "ND")]),
        op("both0", "Mul", 4, ["zero:0"], ["both0"], [desc("both0", [8], "ND")]),
        op("lone", "Exp", 5, ["both0:0"], ["lone"], [desc("lone_src", [2], "ND")]),
    ]}]}
    (tmp_path / "rule.json").write_text(json.dumps(rule))
    return {"npu": npu, "golden": golden, "rule": tmp_path / "rule.json"}


def csv_list(report: opdiff.Report) -> List[Dict[str, str]]:
    header = report.columns.header()
    return [dict(zip(header, format_row(row, report.columns))) for row in report.rows]


def csv_rows(report: opdiff.Report) -> Dict[str, Dict[str, str]]:
    return {row["TensorIndex"]: row for row in csv_list(report)}


def test_ground_truth_of_one_op_keeps_repeated_original_names(case):
    rows = csv_rows(opdiff.compare(case["npu"], case["golden"], fusion_rule=case["rule"]))
    assert rows["t:output:0"]["GroundTruth"] == "T_0,T_0"


def test_shape_is_flat_against_an_nd_golden_and_logical_after_a_layout_conversion(case):
    report = opdiff.compare(case["npu"], case["golden"], fusion_rule=case["rule"])
    rows = csv_rows(report)
    assert rows["t:output:0"]["Shape"] == "[24]"  # ND golden: the reference compares flat
    assert rows["conv:output:0"]["Shape"] == "[1,20,3,3]"  # NC1HWC0 -> NCHW, padding removed
    assert next(r for r in report.rows if r.tensor_index == "t:output:0").shape == (6, 4)  # the row keeps it


def test_missing_ground_truth_names_my_tensor_and_bad_inputs_say_so(case):
    rows = csv_rows(opdiff.compare(case["npu"], case["golden"], fusion_rule=case["rule"]))
    assert rows["lone:output:0"]["CompareFailReason"] == "[lone] There is no the ground truth dump file for lone:output:0."
    assert rows["t:input:1"]["CompareFailReason"] == "The input information (onnx::W_7:0) is invalid. It only supports op_name:index."


def test_all_zero_sides_messages(case):
    rows = csv_rows(opdiff.compare(case["npu"], case["golden"], fusion_rule=case["rule"]))
    zero_golden = str(next(case["golden"].glob("zero.0.*.npy")))
    assert rows["zero:output:0"]["CompareFailReason"] == f"Cannot compare by Cosine Similarity. All the data is zero in {zero_golden}."
    assert rows["zero:output:0"]["CosineSimilarity"] == "NaN"
    assert rows["both0:output:0"]["CosineSimilarity"] == "1.0"
    assert rows["both0:output:0"]["CompareFailReason"] == ""


def test_overflow_is_checked_on_tensors_without_a_partner(case):
    rows = csv_rows(opdiff.compare(case["npu"], case["golden"], fusion_rule=case["rule"], overflow_detection=True))
    assert rows["lone:output:0"]["OverFlow"] == "YES"
    assert rows["zero:output:0"]["OverFlow"] == "NO"


def test_npu_vs_npu_one_sided_ops_and_stored_shapes(tmp_path):
    value = np.random.default_rng(1).standard_normal((1, 20, 2, 2)).astype(np.float32)
    for side in ("a", "b"):
        (tmp_path / side).mkdir()
        opdiff.write_dump(tmp_path / side / f"Conv2D.conv.1.1.{TS}", "conv", outputs=[Tensor(value, layout="NC1HWC0", dtype="float16")])
    opdiff.write_dump(tmp_path / "a" / f"Add.only_a.2.1.{TS + 2}", "only_a", outputs=[np.ones(3, np.float16)])
    opdiff.write_dump(tmp_path / "b" / f"Add.only_b.3.1.{TS + 3}", "only_b", outputs=[np.ones(3, np.float16)])
    rows = csv_list(opdiff.compare(tmp_path / "a", tmp_path / "b"))
    assert rows[0]["Shape"] == "[1,2,2,2,16]"  # NPU vs NPU prints the stored dump shape
    cells = lambda r: (r["OpType"], r["NPUDump"], r["GroundTruth"], r["TensorIndex"], r["CompareFailReason"])  # noqa: E731
    assert cells(rows[1]) == ("NaN", "only_a", "*", "NaN", '[only_a] There is no the ground truth dump file for the op "only_a".')
    assert cells(rows[2]) == ("NaN", "*", "only_b", "NaN", '[only_b] There is no the my output dump file for the op "only_b".')

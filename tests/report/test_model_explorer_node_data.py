"""The node data of ``--report model-explorer`` without Model Explorer installed (the writer needs
no extra): names, modes, what an op's numbers are, NaN left out, the record of the rule. The files
loading into Model Explorer's own classes is tested in tests/viewer."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import numpy as np

import opdiff
from opdiff.graph.grouping import build_fusion_map
from opdiff.graph.provenance import make_op
from opdiff.report.formats import write_report_formats
from opdiff.report.model_explorer.node_data import node_data_documents
from opdiff.results.columns import CsvColumns
from opdiff.results.rows import CompareRow, TensorId
from opdiff.results.scenario import Scenario
from opdiff.results.tensor_report import Report


def _row(index: int, op: str, role: str, x: np.ndarray, y: np.ndarray) -> CompareRow:
    return CompareRow(index, "Conv2D", op, op, TensorId(op, role, 0), my_dtype="float32", golden_dtype="float32",
                      metrics=opdiff.metrics(x, y))


def _report(tmp_path: Path) -> Report:
    y = np.random.default_rng(0).standard_normal(256).astype(np.float32)
    broken = y.copy()
    broken[3] = np.nan
    rows = [
        _row(0, "scope/a", "input", y, y),
        _row(1, "scope/a", "output", 2 * y, y),  # cosine 1, norm ratio error 1: fails on magnitude
        _row(2, "b", "output", broken, y),  # NaN: no cosine, no norm ratio error, a failing verdict
        CompareRow(3, "Relu", "c", "c", TensorId("c", "output", 0), reasons=("no golden file",)),
    ]
    rule = build_fusion_map("model", [("model_graph", [make_op("scope/a", "Conv2D"), make_op("b", "Conv2D")])])
    return Report(Scenario.NPU_VS_GOLDEN, tmp_path, tmp_path, CsvColumns(algorithms=()), rows=rows,
                  csv_path=tmp_path / "result_20260101120000.csv", graph=rule)


def test_an_ops_numbers_are_its_worst_tensor_and_nan_is_left_out(tmp_path: Path) -> None:
    report = _report(tmp_path)
    documents = node_data_documents(report, report.verdict(), "model_graph", {"local_error": {"b": 0.5, "zz": 1.0}})
    results = {metric: document["model_graph"]["results"] for metric, document in documents.items()}
    assert {op: r["value"] for op, r in results["verdict"].items()} == {"scope/a": 1, "b": 1, "c": 2}
    assert set(results["cosine"]) == {"scope/a"} and set(results["norm_ratio_error"]) == {"scope/a"}
    assert results["norm_ratio_error"]["scope/a"]["value"] == report.rows[1].metrics.norm_ratio_error  # type: ignore[union-attr]
    assert results["local_error"] == {"b": {"value": 0.5, "bgColor": results["verdict"]["b"]["bgColor"]}}  # ops only


def test_files_are_named_after_the_result_mode_0600_with_the_record(tmp_path: Path) -> None:
    report = _report(tmp_path)
    (line,) = write_report_formats(report, ["csv", "model-explorer"], [], report.verdict())
    record_path = tmp_path / "result_20260101120000.model_explorer.json"
    assert line == f"model-explorer report: {record_path}"
    record = json.loads(record_path.read_text())
    assert record["rule"] is None and record["graph_id"] == "model"  # built in memory: no file to show, the model name
    names = sorted(path.name for path in tmp_path.glob("*.node_data.json"))
    assert names == [f"result_20260101120000.{m}.node_data.json" for m in ("cosine", "norm_ratio_error", "verdict")]
    assert sorted(record["node_data"].values()) == names
    for path in [record_path, *tmp_path.glob("*.node_data.json")]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        json.loads(path.read_text())  # strict JSON: no NaN

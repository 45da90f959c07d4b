"""The JSON report validates against its documented schema and carries every row and finding."""

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest

import opdiff
from opdiff.advisor.tensor_advisor import advise
from opdiff.report.tensor.json_writer import load_schema, report_json, write_json_report
from tests.compare.test_advisor import make_chain


def test_report_validates_against_the_schema(tmp_path: Path) -> None:
    report, fm = make_chain(tmp_path, 6, lambda i: 0.4 if i == 4 else 1e-3)
    findings = advise(report, fm)
    document = report_json(report, findings)
    jsonschema.validate(document, load_schema())
    assert len(document["rows"]) == len(report.rows)
    assert document["summary"]["failing"] == len([r for r in document["rows"] if r["failing"]]) >= 1
    assert document["findings"][0]["kind"] == "culprit op"
    path = write_json_report(report, tmp_path / "r.json", findings)
    assert json.loads(path.read_text())["rows"][0]["tensor_index"] == report.rows[0].tensor_index


def test_special_values_are_strings_and_not_computed_is_null(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    opdiff.write_dump(a / "Op.op.1.1.1700000000000001", "op", outputs=[np.array([1, np.nan, 3], np.float32)])
    opdiff.write_dump(b / "Op.op.1.1.1700000000000001", "op", outputs=[np.zeros(3, np.float32)])
    document = report_json(opdiff.compare(a, b))
    jsonschema.validate(document, load_schema())
    metrics = document["rows"][0]["metrics"]
    assert metrics["max_absolute_error"] == "nan" and metrics["x"]["nan"] == 1
    assert metrics["reference"]["CosineSimilarity"] is None  # golden all zero: not computed


@pytest.mark.cli_output
def test_cli_writes_the_json_report(tmp_path: Path) -> None:
    make_chain(tmp_path, 3, lambda i: 1e-3)
    out = subprocess.run(
        [sys.executable, "-m", "opdiff", "compare", "-m", str(tmp_path / "npu"), "-g", str(tmp_path / "golden"),
         "-f", str(tmp_path / "chain.json"), "-out", str(tmp_path / "out"), "--report", "csv,json"],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    (path,) = (tmp_path / "out").glob("result_*.json")
    jsonschema.validate(json.loads(path.read_text()), load_schema())
    bad = subprocess.run([sys.executable, "-m", "opdiff", "compare", "-m", "x", "-g", "y", "--report", "pdf"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown report format" in bad.stderr

"""`opdiff compare` on statistics dumps (issue 15, part 2, acceptance): the statistics-dump network
(opdiff.demo.statistics_network) in ND / NCHW / NC1HWC0 / FRACTAL_NZ, fp16 / bf16 / fp32, with a
x1.6 scale fault from op k on. Statistics vs statistics and statistics vs golden .npy (through the
fusion rule) name op k's output as the first failing tensor; without the fault nothing fails, against
the golden and against itself; damaged CSVs become rows or notes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Tuple

import jsonschema
import pytest

import opdiff
from opdiff.cli import main
from opdiff.demo.statistics_network import DTYPES, LAYOUTS, StatisticsCase, write_statistics_case
from opdiff.report.statistics.json_writer import load_schema
from opdiff.results.statistics_report import StatisticsReport

K = 3
CASES = [(layout, dtype) for layout in LAYOUTS for dtype in DTYPES]


def faulty_and_clean(tmp_path: Path, layout: str, dtype: str, **options: object) -> Tuple[StatisticsCase, StatisticsCase]:
    faulty = write_statistics_case(tmp_path / "faulty", layout=layout, dtype=dtype, fault_from=K, **options)  # type: ignore[arg-type]
    clean = write_statistics_case(tmp_path / "clean", layout=layout, dtype=dtype, **options)  # type: ignore[arg-type]
    return faulty, clean


def first_failing(report: StatisticsReport) -> str:
    first = report.first_failure()
    assert first is not None, report.summary()
    return first.tensor_index


@pytest.mark.parametrize("layout, dtype", CASES)
def test_statistics_against_statistics_name_op_k(tmp_path: Path, layout: str, dtype: str) -> None:
    faulty, clean = faulty_and_clean(tmp_path, layout, dtype)
    report = opdiff.compare(faulty.npu, clean.npu)
    assert isinstance(report, StatisticsReport) and report.scenario.name == "NPU_VS_NPU"
    assert first_failing(report) == f"{faulty.npu_ops[K]}:output:0"
    assert report.summary()["not_compared"] == 0


@pytest.mark.parametrize("layout, dtype", CASES)
def test_statistics_against_the_golden_through_the_fusion_rule_name_op_k(tmp_path: Path, layout: str, dtype: str) -> None:
    faulty, _ = faulty_and_clean(tmp_path, layout, dtype)
    report = opdiff.compare(faulty.npu, faulty.golden, fusion_rule=faulty.rule)
    assert first_failing(report).replace("/", "_") == f"{faulty.npu_ops[K]}:output:0"
    # Every NPU op's tensors are compared (the Data op has no dump: one row saying so).
    assert report.summary()["compared"] == 12 and report.summary()["not_compared"] == 1
    padded = layout in ("NC1HWC0", "FRACTAL_NZ")
    assert all((row.padding > 0) == padded for row in report.compared)


@pytest.mark.parametrize("layout, dtype", CASES)
def test_without_the_fault_nothing_fails_against_the_golden_or_itself(tmp_path: Path, layout: str, dtype: str) -> None:
    _, clean = faulty_and_clean(tmp_path, layout, dtype)
    against_golden = opdiff.compare(clean.npu, clean.golden, fusion_rule=clean.rule)
    against_itself = opdiff.compare(clean.npu, clean.npu)
    assert against_golden.summary()["failing"] == 0 and against_golden.summary()["compared"] == 12
    assert against_itself.summary() == {"rows": 12, "compared": 12, "failing": 0, "passing": 12, "not_compared": 0}


def test_a_padded_tensor_would_fail_without_the_padding_in_the_golden(tmp_path: Path) -> None:
    """The check can fail: the golden's logical statistics alone are off by the padding."""
    _, clean = faulty_and_clean(tmp_path, "NC1HWC0", "float16")
    report = opdiff.compare(clean.npu, clean.golden, fusion_rule=clean.rule)
    row = report.compared[0]
    logical = opdiff.read_dump(row.golden_source).outputs[0].to_numpy()
    assert row.my is not None and row.golden is not None and row.padding == row.my.count - logical.size
    assert abs(row.my.mean - float(logical.mean())) > 1e-2 > abs(row.my.mean - row.golden.mean)


@pytest.mark.parametrize("layout", ["NC1HWC0", "FRACTAL_NZ"])
def test_statistics_against_full_npu_dumps(tmp_path: Path, layout: str) -> None:
    faulty, _ = faulty_and_clean(tmp_path, layout, "float16")
    full = write_statistics_case(tmp_path / "full", layout=layout, dtype="float16", full_dumps=True)
    clean_run = opdiff.compare(write_statistics_case(tmp_path / "again", layout=layout).npu, full.npu)
    assert clean_run.summary()["failing"] == 0 and clean_run.summary()["compared"] == 12
    assert all(row.padding == 0 for row in clean_run.compared)  # both sides count the stored elements
    assert first_failing(opdiff.compare(faulty.npu, full.npu)) == f"{faulty.npu_ops[K]}:output:0"
    assert first_failing(opdiff.compare(full.npu, faulty.npu)) == f"{faulty.npu_ops[K]}:output:0"


def test_a_folder_mixing_full_dumps_and_statistics_gives_one_result(tmp_path: Path) -> None:
    faulty, clean = faulty_and_clean(tmp_path, "NC1HWC0", "float16")
    full = write_statistics_case(tmp_path / "full", layout="NC1HWC0", full_dumps=True, fault_from=K)
    for path in sorted(full.npu.iterdir())[:3]:  # three ops also dumped in full: the full dump wins
        path.rename(faulty.npu / path.name)
    out = tmp_path / "out"
    assert main(["compare", "-m", str(faulty.npu), "-g", str(clean.golden), "-f", str(clean.rule), "-out", str(out)]) == 0
    (result,) = out.glob("result_*.csv")
    lines = result.read_text().splitlines()
    assert len(lines) == 1 + 13 and lines[0].startswith("Index,OpType,NPUDump,GroundTruth,TensorIndex,MyDataType")
    report = opdiff.compare(faulty.npu, clean.golden, fusion_rule=clean.rule)
    assert first_failing(report).replace("/", "_") == f"{faulty.npu_ops[K]}:output:0"
    assert sum("the full dump is compared" in note for note in report.notes) == 3
    assert sum(not row.my_source.endswith(".csv") for row in report.compared) == 6  # 3 ops, input and output


@pytest.mark.cli_output
def test_damaged_csvs_become_rows_or_notes(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    faulty, clean = faulty_and_clean(tmp_path, "ND", "float16")
    files = sorted(faulty.npu.glob("*.csv"), key=lambda p: int(p.name.split(".")[2]))
    text = files[0].read_text()
    files[0].write_text(text[: len(text) - 20])  # truncated inside the output line
    files[1].write_text("Max,Min\n1,2\n")  # wrong header
    lines = files[2].read_text().splitlines()
    files[2].write_text("\n".join([lines[0], lines[1].replace(",0,0,0", ",zero,0,0"), lines[2]]) + "\nOutput\n")
    out = tmp_path / "out"
    code = main(["compare", "-m", str(faulty.npu), "-g", str(clean.npu), "-out", str(out), "--report", "json"])
    captured = capsys.readouterr()
    assert code == 0 and "Traceback" not in captured.out + captured.err
    document = json.loads(next(out.glob("result_*.json")).read_text())
    jsonschema.validate(document, load_schema())  # rows not compared, notes
    reasons = {row["tensor_index"]: " ".join(row["reasons"]) for row in document["rows"] if row["result"] == "not compared"}
    assert "truncated" in reasons[f"{faulty.npu_ops[0]}:output:0"] and str(files[0]) in reasons[f"{faulty.npu_ops[0]}:output:0"]
    assert "wrong header" in reasons["NaN"] and str(files[1]) in reasons["NaN"]
    assert "'zero' is not a whole number" in reasons[f"{faulty.npu_ops[2]}:input:0"]
    assert any(str(files[2]) in note and "names no tensor" in note for note in document["notes"])
    assert document["rows"][-1]["result"] == "fail"  # the rest was compared


@pytest.mark.cli_output
def test_fail_under_takes_the_statistics_metrics(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    faulty, clean = faulty_and_clean(tmp_path, "FRACTAL_NZ", "bfloat16")
    args = ["compare", "-m", str(faulty.npu), "-g", str(clean.npu), "-out", str(tmp_path / "out")]
    assert main(args + ["--fail-under", "MaxNormDiff=0.7", "--report", "json"]) == 0
    jsonschema.validate(json.loads(next((tmp_path / "out").glob("result_*.json")).read_text()), load_schema())  # with limits
    assert main(args + ["--fail-under", "MaxNormDiff=0.5"]) == 3
    assert "first failing tensor in execution order: layer4_mul:output:0" in " ".join(capsys.readouterr().out.split())
    assert main(args + ["--fail-under", "CosineSimilarity=0.99"]) == 2
    assert "not a statistics metric" in capsys.readouterr().err
    assert main(args + ["--fail-under", "MeanNormDiff=x"]) == 2


@pytest.mark.cli_output
def test_reports_and_advisor(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    faulty, _ = faulty_and_clean(tmp_path, "NCHW", "float32")
    out = tmp_path / "out"
    assert main(["compare", "-m", str(faulty.npu), "-g", str(faulty.golden), "-f", str(faulty.rule), "-out", str(out),
                 "--report", "csv,json,html", "-advisor"]) == 0
    console = " ".join(capsys.readouterr().out.split())
    assert "first failing tensor in execution order: layer4/mul:output:0 (Index 4, Mul)" in console
    assert "culprit op: layer4/mul" in console
    document = json.loads(next(out.glob("result_*.json")).read_text())
    jsonschema.validate(document, load_schema())  # with findings
    assert document["schema"] == "opdiff-statistics-report/1" and document["summary"]["failing"] == 5
    assert document["findings"][0]["kind"] == "culprit op"
    page = next(out.glob("result_*.html")).read_text()
    data = json.loads(re.search(r'<script id="opdiff-data" type="application/json">(.*?)</script>', page, re.S).group(1))
    assert data["schema"] == document["schema"] and len(data["rows"]) == len(document["rows"])  # drawn: tests/report/test_html_statistics.py
    assert (out / "advisor_summary.txt").read_text().startswith("Detection Type: culprit op")


def test_statistics_fusion_on_against_off_through_both_rules(tmp_path: Path) -> None:
    faulty, clean = faulty_and_clean(tmp_path, "NC1HWC0", "bfloat16")
    report = opdiff.compare(faulty.npu, clean.npu, fusion_rule=faulty.rule, close_fusion_rule=clean.rule)
    assert report.scenario.name == "FUSION_ON_VS_OFF" and first_failing(report) == "layer4/mul:output:0"
    clean_run = opdiff.compare(clean.npu, clean.npu, fusion_rule=clean.rule, close_fusion_rule=clean.rule)
    assert clean_run.summary()["failing"] == 0 and clean_run.summary()["compared"] == 11  # the Data op feeds no dump


def test_rows_built_from_field_dicts_equal_the_constructors(tmp_path: Path) -> None:
    from dataclasses import fields

    from opdiff.dumps.statistics import TensorStatistics
    from opdiff.results.statistics_rows import StatisticsDifferences, StatisticsRow

    _, clean = faulty_and_clean(tmp_path, "ND", "float16")
    row = opdiff.compare(clean.npu, clean.golden, fusion_rule=clean.rule).compared[0]
    assert row == StatisticsRow(**{f.name: getattr(row, f.name) for f in fields(StatisticsRow)})
    assert row.differences == StatisticsDifferences(**{f.name: getattr(row.differences, f.name) for f in fields(StatisticsDifferences)})
    assert row.my == TensorStatistics(**{f.name: getattr(row.my, f.name) for f in fields(TensorStatistics)})


def test_nan_on_my_side_fails_and_the_advisor_calls_it_overflow(tmp_path: Path) -> None:
    from opdiff.advisor.statistics_advisor import advise_statistics

    _, clean = faulty_and_clean(tmp_path, "ND", "float16")
    path = sorted(clean.npu.glob("Mul.*.csv"))[0]
    head, first, second = path.read_text().splitlines()
    cells = second.split(",")
    path.write_text("\n".join([head, first, ",".join(cells[:8] + ["nan", cells[9], "3", "0", "1"])]) + "\n")
    report = opdiff.compare(clean.npu, clean.golden, fusion_rule=clean.rule)
    assert first_failing(report) == "layer4/mul:output:0"
    findings = advise_statistics(report)
    assert findings[0].kind.value == "overflow" and "3 NaN, 1 +Inf" in findings[0].evidence


@pytest.mark.cli_output
def test_the_statistics_demo_names_the_faulty_op(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["demo", "--statistics", "--dir", str(tmp_path / "d"), "--layout", "NCHW", "--fault-from", "1"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "first failing tensor in execution order: layer2/add:output:0" in out and "culprit op: layer2/add" in out
    assert main(["demo", "--statistics", "--dir", str(tmp_path / "e"), "--fault-scale", "1"]) == 0
    assert "every compared tensor meets the thresholds" in capsys.readouterr().out


@pytest.mark.cli_output
def test_single_op_detail_on_a_statistics_dump_says_it_needs_the_full_dump(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    faulty, _ = faulty_and_clean(tmp_path, "ND", "float32")
    code = main(["compare", "-m", str(faulty.npu), "-g", str(faulty.golden), "-f", str(faulty.rule), "-op", "layer4/mul",
                 "-out", str(tmp_path / "out")])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2 and "a statistics dump; -op needs the op's full dump" in err


def test_the_result_csv_reads_back_cell_for_cell(tmp_path: Path) -> None:
    import csv

    from opdiff.report.statistics.csv_writer import COLUMNS

    faulty, _ = faulty_and_clean(tmp_path, "NC1HWC0", "float16")
    report = opdiff.compare(faulty.npu, faulty.golden, fusion_rule=faulty.rule, csv=tmp_path / "r.csv")
    with open(tmp_path / "r.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == COLUMNS and len(rows) == len(report.rows)
    first = rows[1]  # the fused op's input: a ground truth of two names, a shape with commas
    assert first["GroundTruth"] == "layer1/conv,layer1/relu" and first["MyShape"] == "[2,1,7,6,16]"
    assert first["PaddingZeros"] == str(report.rows[1].padding) and float(first["MyMax"]) == report.rows[1].my.max
    assert [row["Result"] for row in rows].count("fail") == 5 and rows[0]["CompareFailReason"].startswith("[input]")


def test_a_device_tree_of_statistics_is_compared_from_its_root(tmp_path: Path) -> None:
    faulty, clean = faulty_and_clean(tmp_path, "FRACTAL_NZ", "float16")
    for case, stamp in ((faulty, "20261201100000"), (clean, "20261130100000")):
        step = tmp_path / f"tree-{stamp}" / stamp / "0" / "net" / "1" / "0"
        step.parent.mkdir(parents=True)
        case.npu.rename(step)
    report = opdiff.compare(tmp_path / "tree-20261201100000", tmp_path / "tree-20261130100000")
    assert first_failing(report) == f"{faulty.npu_ops[K]}:output:0" and report.my_folder.name == "0"

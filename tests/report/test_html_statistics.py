"""The statistics family's HTML report: the same page skeleton as the tensor report (report.html and
report.js), shown through the statistics schema, loaded in a real headless Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Tuple

import pytest

import opdiff
from opdiff.advisor.statistics_advisor import advise_statistics
from opdiff.demo.statistics_network import write_statistics_case
from opdiff.report.html_page import ASSETS
from opdiff.report.statistics.html_writer import PACKING, STATISTICS_PAGE, write_statistics_html
from opdiff.report.tensor.html_writer import TENSOR_PAGE
from opdiff.results.statistics_report import StatisticsReport
from tests.report.test_html_report import attribute
from tests.support.chromium import dump_dom, find_chromium

needs_chromium = pytest.mark.skipif(find_chromium() is None,
                                    reason="no chromium binary on PATH (apt-get install chromium; .ci/run installs it)")
K = 3  # the first faulty op of the generated network


@pytest.fixture(scope="module")
def faulty_page(tmp_path_factory: Any) -> Tuple[Path, StatisticsReport, list]:
    folder = tmp_path_factory.mktemp("statistics_html")
    case = write_statistics_case(folder / "faulty", layout="NC1HWC0", dtype="float16", fault_from=K)
    report = opdiff.compare(case.npu, case.golden, fusion_rule=case.rule)
    assert isinstance(report, StatisticsReport)
    findings = advise_statistics(report)
    return write_statistics_html(report, folder / "statistics.html", findings), report, findings


def test_both_families_share_one_skeleton_and_differ_in_their_schema() -> None:
    assert {"report.html", "report.js", "report.css"} <= {path.name for path in ASSETS.iterdir()}
    views = [schema.view_json() for schema in (TENSOR_PAGE, STATISTICS_PAGE)]
    for schema, view in zip((TENSOR_PAGE, STATISTICS_PAGE), views):
        fields = set(schema.packing.names)
        # what the skeleton itself reads from every family's rows
        assert {"index", "op_type", "tensor_index", "compared", "failing"} <= fields
        named = {c["field"] for c in view["columns"]} | {c["second"] for c in view["columns"]}
        named |= {s["field"] for s in view["series"]} | {d["when"] for d in view["detail"]}
        named |= {part for d in view["detail"] for _, field, _ in d["lines"] for part in field.split("|")}
        named |= {field for d in view["detail"] for _, mine, golden, _ in d["sides"] for field in (mine, golden)}
        named |= set(view["search"]) | set(view["reasons"])
        assert named - {""} <= fields, named - fields
    # the identity columns and the status come from the skeleton, the same for both
    tensor, statistics = ([c["label"] for c in view["columns"]] for view in views)
    assert tensor[:5] == statistics[:5] == ["#", "Index", "OpType", "TensorIndex", "GroundTruth"]
    assert tensor[-2:] == statistics[-2:] == ["status", "reasons"]


def test_page_carries_the_statistics_rows(faulty_page: Tuple[Path, StatisticsReport, list]) -> None:
    page, report, _ = faulty_page
    text = page.read_text(encoding="utf-8")
    assert "<link" not in text and not re.search(r'src="(https?:)?//', text)
    data = json.loads(re.search(r'<script id="opdiff-data" type="application/json">(.*?)</script>', text, re.S).group(1))
    assert data["fields"] == list(PACKING.names) and len(data["rows"]) == len(report.rows)
    assert data["view"]["heading"] == "comparison of statistics dumps" and "graph" not in data
    failing = [dict(zip(data["fields"], row)) for row in data["rows"] if dict(zip(data["fields"], row))["failing"]]
    assert len(failing) == len(report.failing())


@needs_chromium
@pytest.mark.browser
def test_statistics_page_renders_in_chromium(faulty_page: Tuple[Path, StatisticsReport, list]) -> None:
    page, report, findings = faulty_page
    dom = dump_dom(page).dom
    first = report.first_failure()
    assert first is not None
    assert "opdiff comparison of statistics dumps" in dom
    assert re.search(r'first failing tensor in execution order: <a [^>]*class="first-link"[^>]*>'
                     + re.escape(first.tensor_index) + "</a>", dom)
    assert attribute(dom, "row-count", "data-shown") == str(len(report.rows))
    assert dom.count('class="row failing') == len(report.failing())
    assert attribute(dom, "chart", "data-points") == str(len(report.compared))
    assert int(attribute(dom, "chart", "data-ink")) > 50
    assert attribute(dom, "chart", "data-series") == "max_norm min_norm mean_norm"
    assert re.search(r'<section id="graph-section" hidden', dom)  # statistics dumps carry no graph
    links = re.findall(r'class="finding-link" data-row="\d+">([^<]+)</a>', dom)
    assert links == [f.tensor_index for f in findings] and links


@needs_chromium
@pytest.mark.browser
def test_a_row_detail_shows_both_sides_statistics(faulty_page: Tuple[Path, StatisticsReport, list]) -> None:
    page, report, _ = faulty_page
    first = report.first_failure()
    assert first is not None and first.my is not None and first.differences is not None
    at = report.rows.index(first)
    dom = dump_dom(page, fragment=f"row={at}").dom
    start = dom.index('<aside id="detail"')
    detail = dom[start:dom.index("</aside>", start)]
    assert f"<h3>{first.tensor_index}</h3>" in detail and "<h3>differences</h3>" in detail
    assert "<th>MaxNormDiff</th>" in detail and ">golden<" in detail and "failing" in detail
    assert f"<td>{first.my.count}</td>" in detail  # the element count, an integer on both sides
    assert f'<tr class="row failing selected" id="row-{at}"' in dom


@needs_chromium
@pytest.mark.browser
def test_filter_from_the_url_keeps_the_failing_rows(faulty_page: Tuple[Path, StatisticsReport, list]) -> None:
    page, report, _ = faulty_page
    dom = dump_dom(page, fragment="status=failing&sort=MaxNormDiff&order=desc").dom
    assert attribute(dom, "row-count", "data-shown") == str(len(report.failing()))
    shown = re.findall(r'<tr class="row failing[^"]*" id="row-(\d+)"', dom)
    norms = [row.differences.max_norm for row in report.failing() if row.differences is not None]
    top = report.rows[int(shown[0])].differences
    assert top is not None and top.max_norm == pytest.approx(max(norms), rel=1e-6)  # ties may come in either order

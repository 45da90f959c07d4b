"""The HTML report, loaded in a real headless Chromium: the DOM after its scripts ran, the chart, the
findings' links, the detail of a row, a screenshot kept under tests/artifacts/."""

import json
import re
import subprocess
import sys

import pytest

from opdiff.advisor.tensor_advisor import advise
from opdiff.report.tensor.html_writer import ASSETS, DAGRE, ROW_FIELDS, html_data, render_html, write_html_report
from opdiff.report.tensor.json_writer import report_json
from tests.compare.test_advisor import make_chain
from tests.support import paths
from tests.support.chromium import dump_dom, find_chromium, screenshot
from tests.support.large_report import large_report

ARTIFACTS = paths.TESTS / "artifacts"
needs_chromium = pytest.mark.skipif(find_chromium() is None,
                                    reason="no chromium binary on PATH (apt-get install chromium; .ci/run installs it)")


def attribute(dom: str, element_id: str, name: str) -> str:
    tag = re.search(rf'<[a-z]+ [^>]*id="{element_id}"[^>]*>', dom)
    assert tag, f"no element #{element_id}"
    found = re.search(rf'{name}="([^"]*)"', tag.group(0))
    assert found, f"#{element_id} has no {name}"
    return found.group(1)


@pytest.fixture(scope="module")
def culprit_page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("html")
    report, fm = make_chain(folder, 12, lambda i: 0.4 if i == 9 else 1e-3)
    findings = advise(report, fm)
    return write_html_report(report, folder / "report.html", findings), report, findings


def test_page_is_self_contained_and_carries_the_json_report(culprit_page):
    page, report, findings = culprit_page
    text = page.read_text(encoding="utf-8")
    assert "<link" not in text and not re.search(r'src="(https?:)?//', text) and "@import" not in text
    blob = re.search(r'<script id="opdiff-data" type="application/json">(.*?)</script>', text, re.S).group(1)
    data = json.loads(blob)
    assert data["fields"] == list(ROW_FIELDS) and len(data["rows"]) == len(report.rows)
    assert [f["kind"] for f in data["findings"]] == [f.kind.value for f in findings]
    first = dict(zip(data["fields"], data["rows"][1]))
    assert first["tensor_index"] == report.rows[1].tensor_index
    assert data["strings"][first["npu_dump"]] == report.rows[1].npu_dump and first["compared"] == 1
    assert first["cosine_similarity"] == pytest.approx(report.rows[1].metrics.cosine_similarity, rel=1e-6)


def test_data_cannot_close_the_script_element():
    document = report_json(large_report(3))
    document["notes"] = ["</script><script>alert(1)</script>"]
    page = render_html(document)
    assert page.count("</script>") == 4  # the data's, dagre's, the report's and the graph view's, none from the note


@needs_chromium
@pytest.mark.browser
def test_page_renders_in_chromium(culprit_page):
    page, report, findings = culprit_page
    dom = dump_dom(page).dom
    assert attribute(dom, "row-count", "data-shown") == str(len(report.rows))
    assert dom.count('<tr class="row ') == len(report.rows)  # one page holds them all
    assert dom.count('class="row failing') == len(report.failing())
    # the chart was drawn: one point per compared tensor, and paint on the canvas
    assert attribute(dom, "chart", "data-points") == str(len(report.compared))
    assert int(attribute(dom, "chart", "data-ink")) > 50
    # findings on top, each linking to its row
    links = re.findall(r'<a href="#row=(\d+)" class="finding-link" data-row="\d+">([^<]+)</a>', dom)
    assert [tensor for _, tensor in links] == [f.tensor_index for f in findings]
    assert all(report.rows[int(at)].tensor_index == tensor for at, tensor in links)
    assert dom.index('id="findings"') < dom.index('id="chart"') < dom.index('id="rows"')


@needs_chromium
@pytest.mark.browser
def test_a_finding_link_opens_the_row_detail(culprit_page):
    page, report, findings = culprit_page
    culprit = next(f for f in findings if f.kind.value == "culprit op")
    at = next(i for i, row in enumerate(report.rows) if row.tensor_index == culprit.tensor_index)
    dom = dump_dom(page, fragment=f"row={at}").dom
    start = dom.index('<aside id="detail"')
    detail = dom[start:dom.index("</aside>", start)]
    assert f"<h3>{culprit.tensor_index}</h3>" in detail
    assert "cosine_similarity" in detail and "failing" in detail and ">golden<" in detail
    assert f'<tr class="row failing selected" id="row-{at}"' in dom
    ARTIFACTS.mkdir(exist_ok=True)
    shot = screenshot(page, ARTIFACTS / "html_report.png", fragment=f"row={at}")
    assert shot.stat().st_size > 20_000  # a real rendering, not an empty window


@needs_chromium
@pytest.mark.browser
def test_large_report_is_paginated_and_small(tmp_path):
    report = large_report(2500)
    page = write_html_report(report, tmp_path / "big.html", advise(report))
    dom = dump_dom(page).dom
    assert attribute(dom, "row-count", "data-shown") == "2500"
    assert dom.count('<tr class="row ') == 100  # one page in the DOM, not 2500 rows
    assert attribute(dom, "chart", "data-points") == str(len(report.compared))
    # ~460 bytes a row (its table cells and its op in the graph) beside the fixed page (the styles,
    # the scripts and dagre): 20,000 rows stay under 10 MB
    fixed = sum(path.stat().st_size for path in (ASSETS / "report.html", ASSETS / "report.css", ASSETS / "graph.css",
                                                  ASSETS / "report.js", ASSETS / "graph.js", DAGRE))
    assert page.stat().st_size - fixed < 2500 * 500


@needs_chromium
@pytest.mark.browser
def test_filter_and_sort_from_the_url(tmp_path):
    report = large_report(2500)
    page = write_html_report(report, tmp_path / "big.html")
    failing = report.failing()
    dom = dump_dom(page, fragment="status=failing&sort=Cosine&order=asc").dom
    assert attribute(dom, "row-count", "data-shown") == str(len(failing)) == str(dom.count('<tr class="row failing'))
    shown = re.findall(r'<tr class="row [^"]*" id="row-\d+" data-row="\d+"><td class="num">\d+</td><td class="num">\d+</td>'
                       r'<td class="">[^<]*</td><td class="">([^<]+)</td>', dom)
    by_cosine = sorted(failing, key=lambda row: row.metrics.cosine_similarity)
    assert shown == [row.tensor_index for row in by_cosine]
    dom = dump_dom(page, fragment="q=softmax&sort=MaxAbsErr&order=desc").dom
    softmax = [row for row in report.rows if "softmax" in row.tensor_index]
    assert attribute(dom, "row-count", "data-shown") == str(len(softmax))
    first = re.search(r'<tr class="row [^"]*" id="row-(\d+)"', dom).group(1)
    worst = max((row for row in softmax if row.compared), key=lambda row: row.metrics.max_absolute_error)
    assert report.rows[int(first)] is worst


@pytest.mark.cli_output
def test_cli_writes_html_beside_the_csv(tmp_path):
    make_chain(tmp_path, 3, lambda i: 1e-3)
    out = subprocess.run(
        [sys.executable, "-m", "opdiff", "compare", "-m", str(tmp_path / "npu"), "-g", str(tmp_path / "golden"),
         "-f", str(tmp_path / "chain.json"), "-out", str(tmp_path / "out"), "--report", "csv,html"],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    (csv_path,) = (tmp_path / "out").glob("result_*.csv")
    html = csv_path.with_suffix(".html")
    assert html.exists() and "html report:" in out.stdout
    data = html_data(report_json(large_report(1)))
    assert set(data) >= {"rows", "fields", "findings", "thresholds", "summary"}

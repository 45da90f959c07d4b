"""The HTML report's graph view: its data (graph_view.py) from real comparisons, and the page in a
real headless Chromium: the DOM contract (one element per NPU op with its verdict and marks, folded
ops hidden but kept), the culprit's mark, and clicks that show an op's rows and unfold a scope."""

import html
import re
from collections import defaultdict

import pytest

from opdiff.advisor.tensor_advisor import advise
from opdiff.report.tensor.graph_view import graph_view_json
from opdiff.report.tensor.html_writer import write_html_report
from opdiff.results.findings import FindingKind
from tests.compare.test_advisor import make_chain
from tests.support.chromium import dump_dom, find_chromium
from tests.support.large_graph_report import large_graph_report
from tests.support.large_report import large_report

needs_chromium = pytest.mark.skipif(find_chromium() is None,
                                    reason="no chromium binary on PATH (apt-get install chromium; .ci/run installs it)")
CULPRIT_AT = 9  # make_chain's faulty op


def op_elements(dom: str) -> dict:
    """Every element with data-op, as {op name: {attribute: value}}."""
    found = {}
    for tag in re.findall(r"<g [^>]*data-op=[^>]*>", dom):
        attrs = {name: html.unescape(value) for name, value in re.findall(r'([a-z-]+)="([^"]*)"', tag)}
        assert attrs["data-op"] not in found, f"two elements for {attrs['data-op']}"
        found[attrs["data-op"]] = attrs
    return found


def expected_verdicts(report) -> dict:
    """Each op's verdict from the rows, as the DOM contract states it."""
    failing = {id(row) for row in report.failing()}
    rows = defaultdict(list)
    for row in report.rows:
        rows[row.tensor.op].append(row)
    verdicts = {}
    for op, its_rows in rows.items():
        compared = [row for row in its_rows if row.compared]
        verdicts[op] = ("not-compared" if not compared else
                        "fail" if any(id(row) in failing for row in compared) else "pass")
    return verdicts


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    folder = tmp_path_factory.mktemp("graph")
    report, fm = make_chain(folder, 12, lambda i: 0.4 if i == CULPRIT_AT else 1e-3)
    findings = advise(report, fm)
    return write_html_report(report, folder / "report.html", findings), report, fm, findings


def test_graph_data_comes_from_the_rule_the_comparison_used(chain):
    _, report, fm, findings = chain
    assert report.graph is not None and [op.name for op in report.graph.ops] == [op.name for op in fm.ops]
    view = graph_view_json(report, findings, report.verdict())
    assert view["source"] == "fusion rule" and view["ops"] == [op.name for op in fm.ops]
    at = {name: i for i, name in enumerate(view["ops"])}
    # data edges from each op's inputs
    assert view["inputs"][at["op3"]] == [at["op2"]] and view["inputs"][at["x"]] == []
    assert dict(zip(view["ops"], view["verdicts"])) == {**expected_verdicts(report), "x": "not-compared"}
    culprit = next(f for f in findings if f.kind is FindingKind.CULPRIT)
    assert [view["ops"][i] for i in view["culprits"]] == [culprit.op] == [f"op{CULPRIT_AT}"]
    assert view["first_divergence"] == at[culprit.op]
    assert [view["ops"][i] for i in view["path"]] == ["x"] + [f"op{i}" for i in range(1, CULPRIT_AT + 1)]
    # rows point back at the report's rows of the op
    assert {report.rows[i].tensor.op for i in view["rows"][at["op5"]]} == {"op5"}
    assert view["off_by"][at[culprit.op]] > view["off_by"][at["op11"]] >= 0


def test_without_a_rule_the_graph_is_the_dumps_in_execution_order():
    report = large_report(30)
    view = graph_view_json(report, [], report.verdict())
    assert view["source"] == "dump order" and report.graph is None
    assert view["ops"] == list(dict.fromkeys(row.tensor.op for row in report.rows))
    assert view["inputs"] == [[]] + [[i] for i in range(len(view["ops"]) - 1)]


@needs_chromium
@pytest.mark.browser
def test_every_op_has_its_element_with_verdict_and_marks(chain):
    page, report, fm, _ = chain
    dom = dump_dom(page).dom
    assert 'data-ready="1"' in re.search(r'<svg id="graph"[^>]*>', dom).group(0)
    ops = op_elements(dom)
    assert set(ops) == {op.name for op in fm.ops}
    assert {name: attrs["data-verdict"] for name, attrs in ops.items()} == {**expected_verdicts(report), "x": "not-compared"}
    culprit = f"op{CULPRIT_AT}"
    assert [name for name, attrs in ops.items() if attrs.get("data-culprit") == "true"] == [culprit]
    assert [name for name, attrs in ops.items() if attrs.get("data-first-divergence") == "true"] == [culprit]
    assert {name for name, attrs in ops.items() if attrs.get("data-on-path") == "true"} == \
        {"x"} | {f"op{i}" for i in range(1, CULPRIT_AT + 1)}
    # a small graph opens unfolded, and the culprit's mark is drawn: its badge, and an edge on the path into it
    assert all(attrs["data-folded"] == "false" for attrs in ops.values())
    culprit_element = dom[dom.index(f'data-op="{culprit}"'):]
    assert re.match(r'[^>]*>(?:(?!</g>).)*<text [^>]*class="badge"[^>]*>culprit', culprit_element, re.S)
    assert dom.count('class="edge on-path"') == CULPRIT_AT


@needs_chromium
@pytest.mark.browser
def test_a_large_graph_opens_folded_and_keeps_every_op_element(tmp_path):
    report, fm = large_graph_report(2000)
    findings = advise(report, fm)
    page = write_html_report(report, tmp_path / "large.html", findings)
    dom = dump_dom(page, timeout=120).dom
    svg = re.search(r'<svg id="graph"[^>]*>', dom).group(0)
    ops = op_elements(dom)
    assert len(ops) == 2000 == int(re.search(r'data-ops="(\d+)"', svg).group(1))
    assert dom.count(" data-op=") == dom.count(" data-verdict=") == 2000  # scopes and panels carry neither
    shown = [name for name, attrs in ops.items() if attrs["data-folded"] == "false"]
    folded_scopes = re.findall(r'<g class="scope" data-scope="([^"]+)" data-hidden="false"', dom)
    assert 0 < len(shown) < 200 and folded_scopes  # readable: most ops are inside folded scopes
    assert len(shown) + len(folded_scopes) == int(re.search(r'data-visible="(\d+)"', svg).group(1))
    culprit = next(f.op for f in findings if f.kind is FindingKind.CULPRIT)
    assert ops[culprit]["data-culprit"] == "true" and ops[culprit]["data-folded"] == "false"  # in view when it opens
    assert {name: attrs["data-verdict"] for name, attrs in ops.items()} == {**expected_verdicts(report), "input": "not-compared"}
    # the full layout: every scope unfolded, every op shown
    dom = dump_dom(page, fragment="graph=unfolded", timeout=120).dom
    assert all(attrs["data-folded"] == "false" for attrs in op_elements(dom).values())


@needs_chromium
@pytest.mark.browser
def test_a_large_graph_without_a_rule_opens_in_runs_of_execution_order(tmp_path):
    report = large_report(3000)  # no rule: 1,500 "/" scopes side by side, none holding many ops
    page = write_html_report(report, tmp_path / "by-name.html", advise(report))
    dom = dump_dom(page, timeout=120).dom
    svg = re.search(r'<svg id="graph"[^>]*>', dom).group(0)
    assert 'data-ready="1"' in svg and 0 < int(re.search(r'data-visible="(\d+)"', svg).group(1)) <= 200
    ops = op_elements(dom)
    assert {name: attrs["data-verdict"] for name, attrs in ops.items()} == expected_verdicts(report)
    runs = set(re.findall(r'<g class="(?:scope|cluster)" data-scope="#\[(\d+)\u2013\d+\] of 1500"', dom))
    assert "1" in runs and len(runs) > 1  # the top level in runs of execution order


@needs_chromium
@pytest.mark.browser
def test_a_click_on_an_op_shows_its_rows_and_original_ops(tmp_path):
    import opdiff
    from opdiff.demo.report import write_case
    from tests.support.chromium_session import ChromiumPage

    case = write_case(tmp_path, seed=0, fault="block2/conv1", fault_scale=1.5)
    fm = opdiff.read_graph(case["rule"])
    report = opdiff.compare(case["npu"], case["golden"], fusion_rule=fm)
    page = write_html_report(report, tmp_path / "demo.html", advise(report, fm))
    culprit = "block2/relu1_fused"
    with ChromiumPage(page) as browser:
        assert browser.evaluate(f"document.querySelector('[data-op=\"{culprit}\"]').dataset.culprit") == "true"
        browser.click(f'[data-op="{culprit}"] > rect')
        browser.wait_for(f"document.getElementById('graph-detail').dataset.selectedOp === '{culprit}'")
        detail = browser.evaluate("document.getElementById('graph-detail').innerText")
        rows = [row.tensor_index for row in report.rows if row.tensor.op == culprit]
        assert rows and all(tensor in detail for tensor in rows)
        assert all(name in detail for name in fm.op(culprit).original_names)  # block2/conv1, bn1, relu1
        assert "culprit" in detail and "fail" in detail
        # a row link of the detail opens that row in the table
        browser.click("#graph-detail a.row-link")
        browser.wait_for("document.getElementById('detail').dataset.row")
        at = int(browser.evaluate("document.getElementById('detail').dataset.row"))
        assert report.rows[at].tensor.op == culprit
        # folding a scope hides its ops, unfolding shows them again; the elements stay
        count = "document.querySelectorAll('[data-op]').length"
        folded = "document.querySelector('[data-op=\"block1/add\"]').dataset.folded"
        assert browser.evaluate(count) == len(fm.ops) and browser.evaluate(folded) == "false"
        browser.click('.cluster[data-scope="block1"] > rect.fold-tab')
        assert browser.evaluate(folded) == "true" and browser.evaluate(count) == len(fm.ops)
        browser.click('.scope[data-scope="block1"] > rect')
        assert browser.evaluate(folded) == "false" and browser.evaluate(count) == len(fm.ops)


@needs_chromium
@pytest.mark.browser
def test_search_by_name_marks_and_shows_the_match(tmp_path):
    from tests.support.chromium_session import ChromiumPage

    report, fm = large_graph_report(600)
    page = write_html_report(report, tmp_path / "search.html", advise(report, fm))
    wanted = "layer1/block3/"
    with ChromiumPage(page) as browser:
        browser.evaluate("document.getElementById('graph-search').focus()")
        browser.call("Input.insertText", text=wanted)
        browser.wait_for("document.getElementById('graph-found').dataset.found")
        found = int(browser.evaluate("document.getElementById('graph-found').dataset.found"))
        assert found == sum(wanted in op.name for op in fm.ops) > 0
        first = next(op.name for op in fm.ops if wanted in op.name)
        assert browser.evaluate(f"document.querySelector('[data-op=\"{first}\"]').dataset.folded") == "true"
        for kind in ("keyDown", "keyUp"):
            browser.call("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter", windowsVirtualKeyCode=13)
        browser.wait_for(f"document.getElementById('graph-detail').dataset.selectedOp === '{first}'")
        assert browser.evaluate(f"document.querySelector('[data-op=\"{first}\"]').dataset.folded") == "false"


@needs_chromium
@pytest.mark.browser
def test_thresholds_are_a_table_of_rounded_values_and_the_chart_plots_norm_ratio_error(chain):
    page, report, _, _ = chain
    dom = dump_dom(page).dom
    table = dom[dom.index('<table id="thresholds"'):]
    table = table[:table.index("</table>")]
    thresholds = report.verdict().as_json()
    cosine = next(t for t in thresholds if t["metric"] == "CosineSimilarity")
    assert "<th>CosineSimilarity</th>" in table and "<th>NormRatioError</th>" in table
    assert f"<th>{html.escape(cosine['applies_to'])}</th>" in table
    shown = re.sub(r"<script.*?</script>", "", dom, flags=re.S)  # the page as drawn, without its data
    assert repr(cosine["value"]) not in shown  # no sixteen-digit numbers on the page
    assert f"&lt; {cosine['value']:.7f}" in table  # 0.9999898: 1 - value keeps 3 significant digits
    assert "norm_ratio_error" in re.search(r'<canvas id="chart"[^>]*data-series="([^"]*)"', dom).group(1)


def test_vendored_dagre_is_as_debian_ships_it():
    import hashlib

    from opdiff.report.tensor.html_writer import DAGRE

    facts = dict(line.split(": ", 1) for line in (DAGRE.parent / "VERSION").read_text().splitlines()[1:])
    assert hashlib.sha256(DAGRE.read_bytes()).hexdigest() == facts["sha256"]
    assert (DAGRE.parent / "VERSION").read_text().startswith("dagre 0.8.5\n")
    assert "License: Expat" in (DAGRE.parent / "LICENSE").read_text()

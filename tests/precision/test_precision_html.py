"""precision.html in a real headless Chromium: the ops a search keeps are marked kept (their own
attribute, ring, label and legend entry, "left unquantized" for int8), never as culprits."""

import re

import pytest

from opdiff.precision.evaluate import Mode
from opdiff.precision.html import GraphRows, write_precision_html
from tests.compare.test_advisor import make_chain
from tests.report.test_html_graph import needs_chromium, op_elements
from tests.support.chromium import dump_dom

KEPT = ["op3", "op9"]


@needs_chromium
@pytest.mark.browser
def test_kept_ops_are_marked_kept_not_culprit(tmp_path):
    report, fm = make_chain(tmp_path, 12, lambda i: 0.4 if i == 9 else 1e-3)
    page = write_precision_html(GraphRows(fm, report.rows), KEPT, {"op9": "output: cosine 0.99 with it"},
                                tmp_path / "precision.html", mode=Mode.INT8)
    dom = dump_dom(page).dom
    ops = op_elements(dom)
    assert sorted(name for name, attrs in ops.items() if attrs.get("data-kept") == "true") == KEPT
    assert not any("data-culprit" in attrs for attrs in ops.values()) and "culprit" not in dom.split('id="graph-legend"')[1][:2000]
    for name in KEPT:  # the ring around the box and the label beside it
        element = re.search(rf'<g [^>]*data-op="{name}"[^>]*>(.*?)</g>', dom, re.S).group(1)
        assert 'class="kept-ring"' in element and re.search(r'class="badge kept"[^>]*>left unquantized', element)
    assert re.search(r'<i class="kept"></i>left unquantized', dom)  # the legend's entry
    kinds = re.findall(r'<span class="kind ([a-z]+)">([^<]*)</span>', dom)
    assert kinds == [("kept", "left unquantized")] * len(KEPT)

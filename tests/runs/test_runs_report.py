"""The reports of many runs: the HTML heat map (drawn in headless Chromium) and its escaping."""

from __future__ import annotations

import re

import pytest

from opdiff.engine.options import CompareOptions
from opdiff.report.runs.html_writer import render_runs_html, write_runs_html
from opdiff.runs import RunsRequest, compare_runs
from tests.support.chromium import dump_dom, find_chromium
from tests.support.dump_tree import Fault, write_dump_tree


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    tree = write_dump_tree(folder, devices=(0, 1), steps=(0, 1), fault=Fault(device=0, step=1))
    return compare_runs(RunsRequest(str(tree.root), str(tree.golden), CompareOptions(fusion_rule=tree.rule)), folder / "out")


def test_the_page_holds_no_markup_from_the_data(summary):
    summary.stopped_by = "</script><script>alert(1)</script>"
    try:
        page = render_runs_html(summary)
    finally:
        summary.stopped_by = None
    assert page.count("</script>") == 2


@pytest.mark.skipif(find_chromium() is None, reason="no chromium on PATH (Debian's chromium package)")
@pytest.mark.browser
def test_heat_map_draws_every_cell_and_frames_the_first_failure(summary, tmp_path):
    dom = dump_dom(write_runs_html(summary, tmp_path / "summary.html")).dom
    canvas = re.search(r'<canvas id="heatmap"[^>]*>', dom).group(0)
    failing = sum(len(tensor.failing_runs) for tensor in summary.tensors)
    assert f'data-cells="{len(summary.tensors) * len(summary.runs)}"' in canvas
    assert f'data-failing="{failing}"' in canvas and failing > 0
    assert 'data-frames="1"' in canvas
    assert dom.count('<tr class="failing">') == 1 and "0_demo_net_1" in dom


@pytest.mark.skipif(find_chromium() is None, reason="no chromium on PATH (Debian's chromium package)")
@pytest.mark.browser
def test_heat_map_labels_its_axes_and_has_a_legend(summary, tmp_path):
    dom = dump_dom(write_runs_html(summary, tmp_path / "summary.html")).dom
    x_axis = re.search(r'<div id="x-axis"[^>]*>(.*?)</div>', dom, re.S)
    y_axis = re.search(r'<div id="y-axis"[^>]*>(.*?)</div>', dom, re.S)
    assert x_axis and y_axis
    # Cells are tall enough here for a label on every run and every op tensor, in execution order.
    assert re.findall(r">([^<]+)</span>", x_axis.group(1)) == [run.label for run in summary.runs]
    assert re.findall(r">([^<]+)</span>", y_axis.group(1)) == [tensor.tensor for tensor in summary.tensors]
    assert "op tensors, in execution order" in dom and "runs ({device}_{model}_{step})" in dom
    legend = re.search(r'<p id="legend">(.*?)</p>', dom, re.S).group(1)
    assert all(text in legend for text in ("fails", "passes", "not compared", "first failure"))

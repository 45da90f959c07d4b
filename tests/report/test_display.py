"""Report and Metrics in a notebook (_repr_html_, parsed back with html.parser) and in rich (__rich__,
rendered by a recording Console): the content matches the objects and names and paths stay text."""

from __future__ import annotations

import dataclasses
import io
from html.parser import HTMLParser
from typing import Dict, List, Optional, Tuple

import numpy as np
import pytest
from rich.console import Console

import opdiff
from opdiff.demo.report import write_case
from opdiff.numerics.view import metric_rows, number
from opdiff.results.rows import TensorId
from opdiff.results.tensor_report import Report

# Characters that mean something in HTML and in rich markup; a folder may be named like this.
ODD = "case <b>&\"[red]x'"


class Page(HTMLParser):
    """Tables as lists of rows of cell text, every start tag seen, and the text of each <p>/<code>."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: List[str] = []
        self.tables: List[List[List[str]]] = []
        self.captions: List[str] = []
        self.paragraphs: List[str] = []
        self.codes: List[str] = []
        self._open: List[str] = []
        self._text: List[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
        self.tags.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        if tag in ("td", "th", "p", "code", "caption"):
            self._open.append(tag)
            self._text.append("")

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1] == tag:
            self._open.pop()
            text = self._text.pop()
            if self._text:
                self._text[-1] += text  # <code> inside <p>: the paragraph keeps the text too
            if tag == "p":
                self.paragraphs.append(text)
            elif tag == "code":
                self.codes.append(text)
            elif tag == "caption":
                self.captions.append(text)
            else:
                self.tables[-1][-1].append(text)

    def handle_data(self, data: str) -> None:
        if self._text:
            self._text[-1] += data


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    """A real comparison of the demo network (one faulty conv) in a folder with an awkward name."""
    folder = tmp_path_factory.mktemp("display") / ODD
    case = write_case(folder, seed=0, fault="block2/conv1", fault_scale=1.5)
    return opdiff.compare(case["npu"], case["golden"], fusion_rule=case["rule"], csv=folder / "result.csv")


def test_report_html_summarises_the_report(report: Report) -> None:
    page = Page(report._repr_html_())
    summary = report.summary()
    counts = page.tables[0]
    assert counts[0] == ["rows", "compared", "pass", "fail", "not compared"]
    assert counts[1] == [str(summary[key]) for key in ("rows", "compared", "passing", "failing", "not_compared")]
    assert summary["failing"] > 0 and summary["passing"] > 0
    worst = page.tables[1]
    expected = report.worst(10)
    assert [cells[2] for cells in worst[1:]] == [row.tensor_index for row in expected]
    assert worst[1][3] == number(expected[0].metrics.cosine_similarity)  # type: ignore[union-attr]
    first = report.first_failure()
    assert first is not None and first.op_type == "Conv2D"
    assert any(text.startswith(f"first failing tensor in execution order: {first.tensor_index} (Index {first.index}")
               for text in page.paragraphs)
    # The awkward folder name comes back exactly, as text: no <b> element, "&" and quotes intact.
    assert str(report.my_folder) in page.codes and str(report.golden_folder) in page.codes
    assert str(report.csv_path) in page.codes
    assert "b" not in page.tags and ODD in str(report.my_folder)


def test_report_html_escapes_tensor_and_op_names(report: Report) -> None:
    hostile = dataclasses.replace(report.worst(1)[0], tensor=TensorId("<script>alert(1)</script>", "output", 0), op_type="A&B<i>")
    page = Page(dataclasses.replace(report, rows=[hostile])._repr_html_())
    assert "script" not in page.tags and "i" not in page.tags
    assert page.tables[1][1][1:3] == ["A&B<i>", "<script>alert(1)</script>:output:0"]


def render(renderable: object, width: int = 200) -> str:
    console = Console(record=True, width=width, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def test_report_rich_is_the_console_report(report: Report) -> None:
    text = render(report)
    summary = report.summary()
    assert text.startswith("opdiff compare (npu vs golden (fusion rule))\n")
    # rich markup in the folder name ("[red]") is printed, not interpreted.
    assert f"my:     {report.my_folder}\n" in text and f"golden: {report.golden_folder}\n" in text
    assert f"{summary['rows']} rows: {summary['compared']} tensors compared, {summary['passing']} pass" in text
    first = report.first_failure()
    assert first is not None
    assert f"first failing tensor in execution order: {first.tensor_index} (Index {first.index}, Conv2D)" in text
    assert f"result: {report.csv_path}" in text
    hostile = dataclasses.replace(report.worst(1)[0], tensor=TensorId("[bold]x[/bold]", "output", 0))
    assert "[bold]x[/bold]:output:0" in render(dataclasses.replace(report, rows=[hostile]))


def metrics_pair() -> opdiff.Metrics:
    golden = np.linspace(-2, 2, 101, dtype=np.float32)
    mine = golden.astype(np.float16).astype(np.float32)
    mine[7] = np.nan
    return opdiff.metrics(mine, golden)


def test_metrics_html_lists_every_metric() -> None:
    m = metrics_pair()
    page = Page(m._repr_html_())
    values: Dict[str, str] = {cells[0]: cells[1] for cells in page.tables[0]}
    assert list(values.items()) == metric_rows(m)
    assert values["elements"] == "101" and values["CosineSimilarity"] == "nan"  # NaN propagates
    assert page.captions == ["opdiff metrics (my vs golden)"]
    sides = page.tables[1]
    assert sides[0] == ["side", "min", "max", "mean", "std", "NaN", "+Inf", "-Inf"]
    assert sides[1][0] == "my" and sides[1][5] == "1" and sides[2][5] == "0"
    assert sides[2][1:3] == ["-2", "2"]


def test_metrics_html_and_rich_show_notes() -> None:
    m = opdiff.metrics(np.ones(4, np.float32), np.zeros(4, np.float32))
    assert opdiff.Note.GOLDEN_ZERO in m.notes
    assert f"note: {opdiff.Note.GOLDEN_ZERO.value}" in Page(m._repr_html_()).paragraphs
    assert f"note: {opdiff.Note.GOLDEN_ZERO.value}" in render(m)


def test_metrics_rich_table() -> None:
    m = metrics_pair()
    lines = render(m, width=100).splitlines()
    assert lines[0].strip() == "opdiff metrics (my vs golden)"
    for name, value in metric_rows(m):
        assert any(name in line and line.rstrip(" │").endswith(value) for line in lines), (name, value)
    assert any(line.startswith("│ my ") and line.split("│")[6].strip() == "1" for line in lines)

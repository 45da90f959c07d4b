"""The HTML report of a statistics comparison: the shared report page (report/html_page.py) shown
through the statistics family's schema, built from the JSON report's document. Its chart draws the
normalised differences of max, min and mean (what the default verdict reads) along execution order;
its table and detail show both sides' statistics. Statistics dumps carry no graph of the model, so
the page has no graph view."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Sequence, Tuple

from opdiff.report import html_page as page
from opdiff.report.statistics.json_writer import statistics_report_json
from opdiff.results.statistics_verdict import STATISTICS_METRICS, StatisticsVerdict

if TYPE_CHECKING:
    from opdiff.results.statistics_report import StatisticsReport

_STATS = ("max", "min", "mean", "count", "nan", "neg_inf", "pos_inf")
_DIFFERENCES = tuple(STATISTICS_METRICS.values()) + ("worst_norm",)
_IDENTITY = ("index", "op_sequence", "op_type", "npu_dump", "ground_truth", "tensor_index", "my_source", "golden_source",
             "padding_zeros", "compared", "failing", "result", "violated", "reasons")
_ROW_FIELDS: Tuple[Tuple[str, Tuple[str, ...]], ...] = (
    tuple((name, (name,)) for name in _IDENTITY)
    + tuple((f"{side}_{name}", (side, name)) for side in ("my", "golden") for name in ("data_type", "format", "shape") + _STATS)
    + tuple((name, ("differences", name)) for name in _DIFFERENCES)
)
PACKING = page.RowPacking(_ROW_FIELDS, string_fields=("op_type", "npu_dump", "ground_truth", "result", "my_data_type", "golden_data_type",
                                                 "my_format", "golden_format"),
                     bool_fields=("compared", "failing"))
_BY_FIELD = {field: metric for metric, field in STATISTICS_METRICS.items()}
_COUNTS = ("count", "nan", "neg_inf", "pos_inf")

STATISTICS_PAGE = page.PageSchema(
    heading="comparison of statistics dumps",
    packing=PACKING,
    columns=(
        page.Column("dtype", "pair", "my_data_type", "golden_data_type"), page.Column("Shape", "list", "my_shape"),
        page.Column("MaxNormDiff", "float", "max_norm"), page.Column("MinNormDiff", "float", "min_norm"),
        page.Column("MeanNormDiff", "float", "mean_norm"), page.Column("NanInfCountDiff", "int", "special"),
    ),
    series=tuple(
        # the normalised differences the default verdict reads, each named by its metric
        page.Series(STATISTICS_METRICS[metric], "right", metric, colour, metric)
        for metric, colour in (("MaxNormDiff", "#c2185b"), ("MinNormDiff", "#1565c0"), ("MeanNormDiff", "#ef6c00"))
    ),
    detail=(
        page.DetailSection("", (
            ("dtype (my / golden)", "my_data_type|golden_data_type", "pair"),
            ("format (my / golden)", "my_format|golden_format", "pair"), ("source (my / golden)", "my_source|golden_source", "pair"),
            ("padding zeros", "padding_zeros", "int"), ("limits exceeded", "violated", "list"))),
        page.DetailSection("both sides", sides=(("shape", "my_shape", "golden_shape", "list"),) + tuple(
            (name, f"my_{name}", f"golden_{name}", "int" if name in _COUNTS else "float") for name in _STATS)),
        page.DetailSection("differences", tuple((_BY_FIELD.get(name, name), name, "int" if name == "special" else "float")
                                           for name in _DIFFERENCES), when="compared"),
    ),
    reasons=("reasons",),
)


def _with_status(document: Dict[str, Any]) -> Dict[str, Any]:
    # The skeleton reads every family's status from `compared` and `failing`; a statistics row says `result`.
    rows = [{**row, "compared": row["result"] != "not compared", "failing": row["result"] == "fail"} for row in document["rows"]]
    return {**document, "rows": rows}


def html_data(document: Dict[str, Any]) -> Dict[str, Any]:
    """The page's data from a statistics JSON document: rows as arrays in PACKING's order, with
    ``compared`` and ``failing`` read from each row's result.

    >>> data = html_data({"rows": [{"index": 1, "result": "fail", "my": {"max": 2.5}, "golden": None}], "findings": []})
    >>> row = dict(zip(data["fields"], data["rows"][0]))
    >>> row["compared"], row["failing"], row["my_max"], row["golden_max"]
    (1, 1, 2.5, None)
    """
    return PACKING.pack(_with_status(document))


def render_statistics_html(document: Dict[str, Any]) -> str:
    """The page of a statistics JSON document (json_writer.statistics_report_json)."""
    return page.render_report_page(_with_status(document), STATISTICS_PAGE)


def write_statistics_html(report: StatisticsReport, path: Path, findings: Sequence[Any] = (),
                          verdict: StatisticsVerdict = StatisticsVerdict()) -> Path:
    """Write the HTML report through a temporary name."""
    return page.write_page(path, render_statistics_html(statistics_report_json(report, findings, verdict)))


__all__ = ["STATISTICS_PAGE", "html_data", "render_statistics_html", "write_statistics_html"]

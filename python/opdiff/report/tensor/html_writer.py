"""The HTML report of a tensor comparison: the shared report page (report/html_page.py) shown
through the tensor family's schema, with the graph of the compared model (graph_view.py, laid out by
the vendored dagre) and a chart of cosine, max relative error and NormRatioError along execution
order with the thresholds. The data is the JSON report (json_writer.report_json); the reference
metric texts are left out (the page formats the numbers itself).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Sequence, Tuple

from opdiff.numerics.schema import METRICS, SIDE_FIELDS, VALUE_FIELDS
from opdiff.report import html_page as page
from opdiff.report.html_page import ASSETS, DAGRE
from opdiff.report.tensor.graph_view import graph_view_json
from opdiff.report.tensor.json_writer import report_json
from opdiff.results.findings import Finding
from opdiff.results.tensor_report import Report
from opdiff.results.verdict import VerdictLike

_LOCAL = ("verdict", "cosine_similarity", "norm_ratio_error", "amplification", "reason")  # --isolate's, null without it
# Flattened row fields, in the order the page's arrays hold them: (name, path in the JSON row).
_ROW_FIELDS: Tuple[Tuple[str, Tuple[str, ...]], ...] = (
    ("index", ("index",)), ("op_sequence", ("op_sequence",)), ("op_type", ("op_type",)),
    ("npu_dump", ("npu_dump",)), ("ground_truth", ("ground_truth",)), ("tensor_index", ("tensor_index",)),
    ("my_dtype", ("my_dtype",)), ("my_address", ("my_address",)), ("golden_dtype", ("golden_dtype",)),
    ("golden_address", ("golden_address",)), ("shape", ("shape",)), ("overflow", ("overflow",)),
    ("compared", ("compared",)), ("failing", ("failing",)), ("reasons", ("reasons",)),
    ("count", ("metrics", "count")),
) + tuple((name, ("metrics", name)) for name in VALUE_FIELDS) + (
    ("notes", ("metrics", "notes")),
) + tuple((f"{side}_{stat}", ("metrics", side, stat)) for side in ("x", "y") for stat in SIDE_FIELDS) + tuple(
    (f"local_{name}", ("local", name)) for name in _LOCAL
) + (("custom", ("custom_cells",)),)  # the plug-in algorithms' texts (-c), "Name: text" (render_html adds them)

# NPUDump and GroundTruth are mostly the same name: stored once, in the string table.
PACKING = page.RowPacking(_ROW_FIELDS, string_fields=("op_type", "npu_dump", "ground_truth", "my_dtype", "golden_dtype", "local_verdict"),
                     bool_fields=("overflow", "compared", "failing"))
ROW_FIELDS: Tuple[str, ...] = PACKING.names

_METRIC_LINES = (("count", "count", "int"),) + tuple(
    line for spec in METRICS if spec.field
    for line in ((spec.field, spec.field, "float"),) + (((spec.index_field, spec.index_field, "int"),) if spec.index_field else ())
)
TENSOR_PAGE = page.PageSchema(
    heading="comparison",
    packing=PACKING,
    columns=(
        page.Column("dtype", "pair", "my_dtype", "golden_dtype"), page.Column("Shape", "list", "shape"),
        page.Column("Cosine", "float", "cosine_similarity"), page.Column("MaxAbsErr", "float", "max_absolute_error"),
        page.Column("MaxRelErr", "float", "max_relative_error"), page.Column("MeanRelErr", "float", "mean_relative_error"),
        page.Column("RMSE", "float", "root_mean_square_error"),
    ),
    series=(
        page.Series("cosine_similarity", "left", "cosine similarity", "#1565c0", "CosineSimilarity"),
        page.Series("max_relative_error", "right", "max relative error", "rgba(142,36,170,0.75)", "MaxRelativeError"),
        page.Series("norm_ratio_error", "right", "NormRatioError", "#ef6c00", "NormRatioError"),
    ),
    detail=(
        page.DetailSection("", (
            ("dtype (my / golden)", "my_dtype|golden_dtype", "pair"),
            ("address (my / golden)", "my_address|golden_address", "pair"), ("shape", "shape", "list"),
            ("overflow", "overflow", "bool"))),
        page.DetailSection("metrics", _METRIC_LINES, when="compared"),
        page.DetailSection("both sides", sides=tuple((stat, f"x_{stat}", f"y_{stat}", "int" if stat in ("nan", "pos_inf", "neg_inf") else "float")
                                                for stat in SIDE_FIELDS), when="compared"),
        page.DetailSection("plug-in algorithms (-c)", (("values", "custom", "list"),), when="custom"),
        page.DetailSection("own error (op re-run alone on the device's inputs)", (
            ("local verdict", "local_verdict", "text"), ("local cosine_similarity", "local_cosine_similarity", "float"),
            ("local norm_ratio_error", "local_norm_ratio_error", "float"), ("amplification", "local_amplification", "float"),
            ("reason", "local_reason", "text")), when="local_verdict"),
    ),
    reasons=("reasons", "notes"),
)


def html_data(document: Dict[str, Any]) -> Dict[str, Any]:
    """The page's data: the JSON report with its rows as arrays in ROW_FIELDS order, the fields of
    the string table as positions in ``strings``, the booleans as 0/1.

    >>> data = html_data({"rows": [{"index": 3, "op_type": "Add", "compared": True, "metrics": None}], "findings": []})
    >>> row = dict(zip(data["fields"], data["rows"][0]))
    >>> row["index"], data["strings"][row["op_type"]], row["compared"], len(data["rows"][0]) == len(ROW_FIELDS)
    (3, 'Add', 1, True)
    """
    return PACKING.pack(document)


def render_html(document: Dict[str, Any]) -> str:
    """The whole page for a JSON report document (json_writer.report_json)."""
    return page.render_report_page(_with_custom_cells(document), TENSOR_PAGE)


def _with_custom_cells(document: Dict[str, Any]) -> Dict[str, Any]:
    """The document with each row's plug-in texts (its "custom" object) as a list of "Name: text",
    for the row's detail; a document without plug-ins as it is."""
    if not any("custom" in row for row in document["rows"]):
        return document
    rows = [{**row, "custom_cells": [f"{name}: {text}" for name, text in row["custom"].items()]} if "custom" in row else row
            for row in document["rows"]]
    return {**document, "rows": rows}


def write_html_report(report: Report, path: Path, findings: Sequence[Finding] = (), verdict: VerdictLike = None) -> Path:
    """Write the HTML report of a Report (and the advisor's findings) through a temporary name.

    >>> import numpy as np, tempfile
    >>> from opdiff.numerics.core_adapter import metrics
    >>> from opdiff.results.columns import CsvColumns
    >>> from opdiff.results.rows import CompareRow, TensorId
    >>> from opdiff.results.scenario import Scenario
    >>> y = np.arange(8, dtype=np.float32)
    >>> row = CompareRow(index=0, op_type="Op", npu_dump="op", ground_truth="op", tensor=TensorId("op", "output", 0),
    ...                  my_dtype="float32", golden_dtype="float32", metrics=metrics(y, y * 1.01))
    >>> report = Report(Scenario.NPU_VS_NPU, Path("a"), Path("b"), CsvColumns(), [row])
    >>> page = write_html_report(report, Path(tempfile.mkdtemp()) / "r.html")
    >>> text = page.read_text()
    >>> "<canvas" in text and "<link" not in text and 'src="http' not in text and 'id="graph"' in text
    True
    """
    judge = report.verdict(verdict)
    document = report_json(report, findings, judge)
    document["graph"] = graph_view_json(report, findings, judge)
    return page.write_page(path, render_html(document))


__all__ = ["ASSETS", "DAGRE", "PACKING", "ROW_FIELDS", "TENSOR_PAGE", "html_data", "render_html", "write_html_report"]

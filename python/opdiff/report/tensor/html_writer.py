"""The HTML report: one self-contained file (inline CSS and JS, no network access) that renders the
JSON report client-side: the advisor's findings, the graph of the compared model (graph_view.py,
laid out by the vendored dagre), a chart of cosine, max relative error and NormRatioError along
execution order with the thresholds, a sortable, filterable, paginated table and per-tensor detail.

The data is the JSON report (json_writer.report_json) with each row stored as an array (field names
once, not per row), repeated strings (op names, types, dtypes) as numbers into one string table,
booleans as 0/1 and floats cut to 7 significant digits: a 20,000-row report stays a few MB and
parses in milliseconds. The reference metric texts are left out (the page formats the numbers
itself).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

from opdiff.fileio.atomic import RESULT_MODE, write_text
from opdiff.numerics.schema import SIDE_FIELDS, VALUE_FIELDS
from opdiff.report.tensor.graph_view import graph_view_json
from opdiff.report.tensor.json_writer import report_json
from opdiff.results.findings import Finding
from opdiff.results.tensor_report import Report
from opdiff.results.verdict import VerdictLike

ASSETS = Path(__file__).parent.parent / "html"
# dagre 0.8.5 as Debian ships it, unmodified (tools/fetch_dagre.sh; vendor/VERSION and vendor/LICENSE)
DAGRE = ASSETS / "vendor" / "dagre.min.js"

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
    (f"local_{name}", ("local", name)) for name in ("verdict", "cosine_similarity", "norm_ratio_error", "amplification", "reason")
)  # the local error of --isolate (null without it)

ROW_FIELDS: Tuple[str, ...] = tuple(name for name, _ in _ROW_FIELDS)
# Stored as positions in data["strings"]: NPUDump and GroundTruth are mostly the same name.
STRING_FIELDS = ("op_type", "npu_dump", "ground_truth", "my_dtype", "golden_dtype", "local_verdict")
BOOL_FIELDS = ("overflow", "compared", "failing")


def _short(value: Any) -> Any:
    # 7 significant digits keep every float32 distinction a person reads and halve the text.
    return float(f"{value:.7g}") if isinstance(value, float) else value


def _flatten(row: Dict[str, Any], strings: Dict[str, int]) -> List[Any]:
    values = []
    for name, path in _ROW_FIELDS:
        value: Any = row
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if name in STRING_FIELDS and value is not None:
            value = strings.setdefault(value, len(strings))
        elif name in BOOL_FIELDS and value is not None:
            value = int(value)
        values.append(_short(value))
    return values


def html_data(document: Dict[str, Any]) -> Dict[str, Any]:
    """The page's data: the JSON report with its rows as arrays in ROW_FIELDS order, the fields of
    STRING_FIELDS as positions in ``strings``, those of BOOL_FIELDS as 0/1.

    >>> data = html_data({"rows": [{"index": 3, "op_type": "Add", "compared": True, "metrics": None}], "findings": []})
    >>> row = dict(zip(data["fields"], data["rows"][0]))
    >>> row["index"], data["strings"][row["op_type"]], row["compared"], len(data["rows"][0]) == len(ROW_FIELDS)
    (3, 'Add', 1, True)
    """
    strings: Dict[str, int] = {}
    data = {key: value for key, value in document.items() if key != "rows"}
    data["fields"] = list(ROW_FIELDS)
    data["string_fields"] = list(STRING_FIELDS)
    data["bool_fields"] = list(BOOL_FIELDS)
    data["rows"] = [_flatten(row, strings) for row in document["rows"]]
    data["strings"] = list(strings)
    return data


def _script_json(data: Dict[str, Any]) -> str:
    text = json.dumps(data, allow_nan=False, separators=(",", ":"), ensure_ascii=False)
    # Inside <script>, "</" could end the element early; "<!--" could open a comment state.
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def render_html(document: Dict[str, Any]) -> str:
    """The whole page for a JSON report document (json_writer.report_json)."""
    template = (ASSETS / "report.html").read_text(encoding="utf-8")
    title = f"opdiff report: {Path(str(document.get('my', ''))).name or 'comparison'}"
    parts = {
        "/*OPDIFF_CSS*/": "\n".join((ASSETS / name).read_text(encoding="utf-8") for name in ("report.css", "graph.css")),
        "/*OPDIFF_DAGRE*/": DAGRE.read_text(encoding="utf-8"),
        "/*OPDIFF_JS*/": (ASSETS / "report.js").read_text(encoding="utf-8"),
        "/*OPDIFF_GRAPH_JS*/": (ASSETS / "graph.js").read_text(encoding="utf-8"),
        "/*OPDIFF_DATA*/": _script_json(html_data(document)),
        "OPDIFF_TITLE": title.replace("&", "&amp;").replace("<", "&lt;"),
    }
    for marker, text in parts.items():
        head, found, tail = template.partition(marker)
        assert found, f"report.html lacks {marker}"
        template = head + text + tail  # partition, not replace: the data may contain a marker's text
    return template


def write_html_report(report: Report, path: Path, findings: Sequence[Finding] = (), verdict: VerdictLike = None) -> Path:
    """Write the HTML report of a Report (and the advisor's findings) through a temporary name.

    >>> import numpy as np, opdiff, tempfile, os
    >>> from opdiff.advisor.tensor_advisor import advise
    >>> d = tempfile.mkdtemp(); a, b = os.path.join(d, "a"), os.path.join(d, "b")
    >>> os.mkdir(a); os.mkdir(b)
    >>> for side, scale in ((a, 1.0), (b, 1.01)):
    ...     _ = opdiff.write_dump(os.path.join(side, "Op.op.1.1.1700000000000001"), "op",
    ...                           outputs=[np.arange(8, dtype=np.float32) * scale])
    >>> report = opdiff.compare(a, b)
    >>> page = write_html_report(report, os.path.join(d, "r.html"), advise(report))
    >>> text = page.read_text()
    >>> "<canvas" in text and "<link" not in text and 'src="http' not in text and 'id="graph"' in text
    True
    """
    judge = report.verdict(verdict)
    document = report_json(report, findings, judge)
    document["graph"] = graph_view_json(report, findings, judge)
    return write_text(path, render_html(document), mode=RESULT_MODE)

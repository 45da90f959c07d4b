"""What every HTML page of opdiff shares: one self-contained file (inline CSS and JS, no network
access) made from a template of html/ whose markers are filled, with the page's data as JSON in a
script element.

The report page (html/report.html, report.js) is one skeleton for every result family: a header
with the verdict's thresholds and the first failing tensor, the advisor's findings, a chart along
execution order, a sortable, filterable, paginated table and the detail of a row. A family differs
only in its `PageSchema`: which fields its rows carry (`RowPacking`), which of them are the table's
columns, the chart's series and the detail's sections. The tensor family adds the graph view
(graph.js), drawn when the data holds a graph.

The rows travel as arrays (field names once, not per row), repeated strings as positions into one
string table, booleans as 0/1 and floats cut to 7 significant digits: a 20,000-row report stays a
few MB and parses in milliseconds.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Tuple

from opdiff.fileio.atomic import RESULT_MODE, write_text

ASSETS = Path(__file__).parent / "html"
# dagre 0.8.5 as Debian ships it, unmodified (tools/fetch_dagre.sh; vendor/VERSION and vendor/LICENSE)
DAGRE = ASSETS / "vendor" / "dagre.min.js"


def _short(value: Any) -> Any:
    # 7 significant digits keep every float32 distinction a person reads and halve the text.
    return float(f"{value:.7g}") if isinstance(value, float) else value


@dataclass(frozen=True)
class RowPacking:
    """How a family's JSON rows become the page's arrays: each field's name and its path in a row;
    the fields stored as positions into ``strings``, and those stored as 0/1.

    >>> packing = RowPacking((("index", ("index",)), ("kind", ("op", "type")), ("ok", ("ok",))), ("kind",), ("ok",))
    >>> data = packing.pack({"rows": [{"index": 3, "op": {"type": "Add"}, "ok": True}], "notes": []})
    >>> data["rows"], data["strings"], data["fields"]
    ([[3, 0, 1]], ['Add'], ['index', 'kind', 'ok'])
    """

    fields: Tuple[Tuple[str, Tuple[str, ...]], ...]
    string_fields: Tuple[str, ...]
    bool_fields: Tuple[str, ...]

    @property
    def names(self) -> Tuple[str, ...]:
        return tuple(name for name, _ in self.fields)

    def _flatten(self, row: Mapping[str, Any], strings: Dict[str, int]) -> List[Any]:
        values = []
        for name, path in self.fields:
            value: Any = row
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            if name in self.string_fields and value is not None:
                value = strings.setdefault(value, len(strings))
            elif name in self.bool_fields and value is not None:
                value = int(value)
            values.append(_short(value))
        return values

    def pack(self, document: Mapping[str, Any]) -> Dict[str, Any]:
        """The document with its rows as arrays in field order, beside the field lists and strings."""
        strings: Dict[str, int] = {}
        data = {key: value for key, value in document.items() if key != "rows"}
        data["fields"] = list(self.names)
        data["string_fields"] = list(self.string_fields)
        data["bool_fields"] = list(self.bool_fields)
        data["rows"] = [self._flatten(row, strings) for row in document["rows"]]
        data["strings"] = list(strings)
        return data


@dataclass(frozen=True)
class Column:
    """A column of the table. kind: position (the row's place), int, text, float, pair (field and
    second as "a/b"), list (joined by ","), status, reason (a list, joined by ", ")."""

    label: str
    kind: str
    field: str = ""
    second: str = ""


@dataclass(frozen=True)
class Series:
    """A line of the chart along execution order: on the left axis (linear, up to 1: a similarity)
    or the right one (log10: an error), dashed at the verdict's threshold of ``threshold``."""

    field: str
    axis: str
    label: str
    colour: str
    threshold: str = ""


@dataclass(frozen=True)
class DetailSection:
    """A part of a row's detail, shown when the row's field ``when`` is true or set (always when
    empty): label, field and kind (as Column's) per line, or per line of ``sides`` a label and one
    field for each of the two sides."""

    title: str
    lines: Tuple[Tuple[str, str, str], ...] = ()
    sides: Tuple[Tuple[str, str, str, str], ...] = ()
    when: str = ""


# What places a row, the same in every family (results/ and report/json_document.row_identity_json):
# the table's first columns, the detail's first lines, and the text the filter looks in.
IDENTITY_COLUMNS = (Column("#", "position"), Column("Index", "int", "index"), Column("OpType", "text", "op_type"),
                    Column("TensorIndex", "text", "tensor_index"), Column("GroundTruth", "text", "ground_truth"))
IDENTITY_LINES = (("status", "", "status"), ("Index", "index", "int"), ("OpType", "op_type", "text"),
                  ("NPUDump", "npu_dump", "text"), ("GroundTruth", "ground_truth", "text"))
IDENTITY_SEARCH = ("op_type", "tensor_index", "npu_dump", "ground_truth")


@dataclass(frozen=True)
class PageSchema:
    """What a result family shows on the report page; everything else is the shared skeleton."""

    heading: str  # what the page shows: "comparison", "comparison of statistics dumps"
    packing: RowPacking
    columns: Tuple[Column, ...]  # the family's own, between the identity columns and the status
    series: Tuple[Series, ...]
    detail: Tuple[DetailSection, ...]  # after the identity lines
    reasons: Tuple[str, ...]  # list fields the detail's "reasons" joins; the first is the table's column

    def view_json(self) -> Dict[str, Any]:
        """What the page reads: the schema with the identity columns, lines and search around the family's."""
        view = asdict(self)
        del view["packing"]
        trailing = (Column("status", "status"), Column("reasons", "reason", self.reasons[0]))
        view["columns"] = [asdict(column) for column in IDENTITY_COLUMNS + self.columns + trailing]
        first, *rest = view["detail"]
        view["detail"] = [{**first, "lines": [*map(list, IDENTITY_LINES), *first["lines"]]}, *rest]
        view["search"] = list(IDENTITY_SEARCH)
        return view


def script_json(data: Any) -> str:
    """JSON that cannot end its script element early."""
    text = json.dumps(data, allow_nan=False, separators=(",", ":"), ensure_ascii=False)
    # Inside <script>, "</" could end the element early; "<!--" could open a comment state.
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def fill_template(template: str, parts: Mapping[str, str], title: str) -> str:
    """html/`template` with each marker of `parts` replaced by its text and OPDIFF_TITLE by `title`."""
    page = (ASSETS / template).read_text(encoding="utf-8")
    for marker, text in {**parts, "OPDIFF_TITLE": title.replace("&", "&amp;").replace("<", "&lt;")}.items():
        head, found, tail = page.partition(marker)
        assert found, f"{template} lacks {marker}"
        page = head + text + tail  # partition, not replace: the data may contain a marker's text
    return page


def assets(*names: str) -> str:
    """The text of html/ files, one after the other."""
    return "\n".join((ASSETS / name).read_text(encoding="utf-8") for name in names)


def render_report_page(document: Mapping[str, Any], schema: PageSchema) -> str:
    """The report page of a JSON report document of any family, shown through its schema."""
    data = schema.packing.pack(document)
    data["view"] = schema.view_json()
    parts = {
        "/*OPDIFF_CSS*/": assets("report.css", "graph.css"),
        "/*OPDIFF_DAGRE*/": DAGRE.read_text(encoding="utf-8"),
        "/*OPDIFF_JS*/": assets("report.js"),
        "/*OPDIFF_GRAPH_JS*/": assets("graph.js"),
        "/*OPDIFF_DATA*/": script_json(data),
        "OPDIFF_HEADING": schema.heading,
    }
    return fill_template("report.html", parts, f"opdiff {schema.heading}: {Path(str(document.get('my', ''))).name or 'report'}")


def write_page(path: Path, page: str) -> Path:
    """Write a page through a temporary name, with the results' mode."""
    return write_text(path, page, mode=RESULT_MODE)

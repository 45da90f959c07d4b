"""The HTML report of a statistics comparison: one self-contained page (inline CSS, no script, no
network access) with the summary, the first failing tensor, the advisor's findings and a table of
every row (failing rows marked), built from the JSON report's document."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Sequence

from opdiff.fileio.atomic import RESULT_MODE, write_text
from opdiff.report.statistics.json_writer import statistics_report_json
from opdiff.results.statistics_verdict import StatisticsVerdict

if TYPE_CHECKING:
    from opdiff.results.statistics_report import StatisticsReport

_CSS = """
body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; white-space: nowrap; }
td.text { text-align: left; white-space: normal; }
tr.fail { background: #fde2e2; } tr.missing { background: #eee; color: #666; }
.first { color: #b00; font-weight: bold; }
"""
_STATS = ("max", "min", "mean", "count", "nan", "neg_inf", "pos_inf")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return html.escape(str(value))


def _row_html(row: Dict[str, Any]) -> str:
    css = {"fail": "fail", "not compared": "missing"}.get(row["result"], "")
    cells = [_cell(row["index"]), f'<td class="text">{_cell(row["tensor_index"])}</td>', _cell(row["op_type"])]
    for side in ("my", "golden"):
        stats = row[side] or {}
        cells.append(_cell(stats.get("data_type")))
        cells += [_cell(stats.get(name)) for name in _STATS]
    d = row["differences"] or {}
    cells += [_cell(d.get(name)) for name in ("max_norm", "min_norm", "mean_norm", "special")]
    cells += [_cell(row["result"]), f'<td class="text">{_cell(" ".join(row["reasons"]))}</td>']
    return f'<tr class="{css}">' + "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in cells) + "</tr>"


def render_statistics_html(document: Dict[str, Any]) -> str:
    """The page of a statistics JSON document (statistics_json.statistics_report_json)."""
    s = document["summary"]
    first = next((row for row in document["rows"] if row["result"] == "fail"), None)
    header = ["Index", "TensorIndex", "OpType"] + [f"{side} {name}" for side in ("my", "golden") for name in ("dtype",) + _STATS]
    header += ["MaxNormDiff", "MinNormDiff", "MeanNormDiff", "NanInfCountDiff", "Result", "Why"]
    parts: List[str] = [
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\">",
        f"<title>opdiff statistics report: {html.escape(Path(document['my']).name)}</title><style>{_CSS}</style></head><body>",
        f"<h1>opdiff compare ({html.escape(document['scenario'])}, statistics dumps)</h1>",
        f"<p>my: {html.escape(document['my'])}<br>golden: {html.escape(document['golden'])}<br>"
        f"verdict: {html.escape(document['verdict'])}<br>created {html.escape(document['created'])} by opdiff "
        f"{html.escape(document['opdiff_version'])}{'' if document['complete'] else ' (interrupted: partial)'}</p>",
        f"<p>{s['rows']} rows: {s['compared']} compared, {s['passing']} pass, {s['failing']} fail, {s['not_compared']} not compared</p>",
    ]
    if first is not None:
        parts.append(f'<p class="first">first failing tensor in execution order: {html.escape(first["tensor_index"])} '
                     f'(Index {first["index"]}, {html.escape(first["op_type"])})</p>')
    if document["findings"]:
        parts.append("<h2>advisor</h2><ol>" + "".join(
            f"<li><b>{html.escape(f['kind'])}</b>: {html.escape(f['op'])} ({html.escape(f['tensor_index'])}, Index {f['index']})"
            f"<br>{html.escape(f['evidence'])}<br><i>{html.escape(f['advice'])}</i></li>" for f in document["findings"]) + "</ol>")
    parts.append("<table><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr></thead><tbody>")
    parts.extend(_row_html(row) for row in document["rows"])
    parts.append("</tbody></table>")
    if document["notes"]:
        parts.append("<h2>notes</h2><ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in document["notes"]) + "</ul>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_statistics_html(report: StatisticsReport, path: Path, findings: Sequence[Any] = (),
                          verdict: StatisticsVerdict = StatisticsVerdict()) -> Path:
    """Write the HTML report through a temporary name."""
    return write_text(path, render_statistics_html(statistics_report_json(report, findings, verdict)), mode=RESULT_MODE)


__all__ = ["render_statistics_html", "write_statistics_html"]

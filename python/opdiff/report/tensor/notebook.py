"""A :class:`opdiff.Report` in a notebook: a compact HTML summary (Jupyter shows it for a Report value).

The same facts as the console report: scenario and folders, pass/fail counts, the worst tensors
and the first failing one in execution order. Every name and path is HTML-escaped.
"""

from __future__ import annotations

import html
from typing import List, Sequence

from opdiff.numerics.view import number
from opdiff.results.tensor_report import Report
from opdiff.results.verdict import Verdict

WORST_COLUMNS = ("Index", "OpType", "TensorIndex", "Cosine", "MaxAbsErr", "MaxRelErr", "Why")


def _row(tag: str, values: Sequence[str]) -> str:
    return "<tr>" + "".join(f"<{tag}>{html.escape(value)}</{tag}>" for value in values) + "</tr>"


def report_html(report: Report, verdict: Verdict, worst: int = 10) -> str:
    """The summary of `report` as an HTML fragment, pass and fail by `verdict`."""
    summary = report.summary(verdict)
    limits = verdict.limits_text(report.rows)
    parts: List[str] = [
        '<div class="opdiff-report">',
        f"<p><strong>opdiff compare</strong> ({html.escape(report.scenario.value)})<br>",
        f"my: <code>{html.escape(str(report.my_folder))}</code><br>",
        f"golden: <code>{html.escape(str(report.golden_folder))}</code></p>",
        "<table>",
        f"<caption style=\"caption-side:bottom\">fail: {html.escape(limits)}</caption>",
        _row("th", ("rows", "compared", "pass", "fail", "not compared")),
        _row("td", tuple(str(summary[key]) for key in ("rows", "compared", "passing", "failing", "not_compared"))),
        "</table>",
    ]
    if not report.complete:
        parts.append("<p><strong>interrupted</strong>: the report covers the ops compared before the stop</p>")
    rows = [row for row in report.worst(worst, verdict) if row.metrics is not None]
    if rows:
        parts += ["<table>", "<caption>worst tensors (lowest cosine)</caption>", _row("th", WORST_COLUMNS)]
        for row in rows:
            m = row.metrics
            assert m is not None
            parts.append(_row("td", (str(row.index), row.op_type, row.tensor_index, number(m.cosine_similarity),
                                     number(m.max_absolute_error), number(m.max_relative_error), ", ".join(row.reasons))))
        parts.append("</table>")
    first = report.first_failure(verdict)
    if first is None:
        parts.append("<p>every compared tensor meets the thresholds</p>")
    else:
        m = first.metrics
        assert m is not None
        parts.append(
            f"<p><strong>first failing tensor in execution order:</strong> <code>{html.escape(first.tensor_index)}</code>"
            f" (Index {first.index}, {html.escape(first.op_type)}): cosine {number(m.cosine_similarity)}, max abs error "
            f"{number(m.max_absolute_error)} at flat index {m.max_absolute_error_index}</p>"
        )
    if report.csv_path is not None:
        parts.append(f"<p>result: <code>{html.escape(str(report.csv_path))}</code></p>")
    parts.append("</div>")
    return "\n".join(parts)

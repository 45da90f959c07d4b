"""``summary_{ts}.html``: one self-contained page with the op tensor × run heat map of a many-run
summary (assets html/runs.*; no network access), where people would rather look than read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

from opdiff.fileio.atomic import RESULT_MODE, write_text
from opdiff.report.json_document import json_number
from opdiff.report.runs.json_writer import summary_json
from opdiff.results.runs_summary import RunsSummary

ASSETS = Path(__file__).parent.parent / "html"


def heatmap_data(summary: RunsSummary) -> Dict[str, Any]:
    """What the page draws: runs, tensors in execution order, and cells[tensor][run] = [value, failed] or None."""
    labels = [run.label for run in summary.runs]
    cells: List[List[Optional[List[Any]]]] = []
    for tensor in summary.tensors:
        row: List[Optional[List[Any]]] = []
        for label in labels:
            cell = tensor.cells.get(label)
            row.append(None if cell is None else [json_number(float(f"{cell.value:.7g}")), int(cell.failed)])
        cells.append(row)
    document = summary_json(summary)
    return {
        "metric": summary.metrics[0], "verdict": summary.verdict, "complete": summary.complete,
        "stopped_by": summary.stopped_by, "totals": document["totals"],
        "runs": [{"label": run.label, "status": run.status.value, "compared": run.compared, "failed": run.failed,
                  "first_tensor": run.first_failure.tensor if run.first_failure else None, "reason": run.reason}
                 for run in summary.runs],
        "tensors": [{"tensor": tensor.tensor, "op": tensor.op} for tensor in summary.tensors],
        "cells": cells,
    }


def render_runs_html(summary: RunsSummary) -> str:
    page = (ASSETS / "runs.html").read_text(encoding="utf-8")
    data = json.dumps(heatmap_data(summary), allow_nan=False, separators=(",", ":"), ensure_ascii=False)
    parts = {
        "/*OPDIFF_CSS*/": (ASSETS / "runs.css").read_text(encoding="utf-8"),
        "/*OPDIFF_JS*/": (ASSETS / "runs.js").read_text(encoding="utf-8"),
        # Inside <script>, "</" could end the element early; "<!--" could open a comment state.
        "/*OPDIFF_DATA*/": data.replace("</", "<\\/").replace("<!--", "<\\!--"),
        "OPDIFF_TITLE": f"opdiff: {len(summary.runs)} runs".replace("&", "&amp;").replace("<", "&lt;"),
    }
    for marker, text in parts.items():
        head, found, tail = page.partition(marker)
        assert found, f"runs.html lacks {marker}"
        page = head + text + tail  # partition, not replace: the data may contain a marker's text
    return page


def write_runs_html(summary: RunsSummary, path: Path) -> Path:
    """Write the page through a temporary name."""
    return write_text(path, render_runs_html(summary), mode=RESULT_MODE)

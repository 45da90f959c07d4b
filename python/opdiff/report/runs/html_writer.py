"""``summary_{ts}.html``: one self-contained page with the op tensor × run heat map of a many-run
summary (assets html/runs.*; no network access), where people would rather look than read."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional

from opdiff.report.html_page import assets, fill_template, script_json, write_page
from opdiff.report.json_document import json_number
from opdiff.report.runs.json_writer import summary_json
from opdiff.results.runs_summary import RunsSummary


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
    parts = {"/*OPDIFF_CSS*/": assets("runs.css"), "/*OPDIFF_JS*/": assets("runs.js"),
             "/*OPDIFF_DATA*/": script_json(heatmap_data(summary))}
    return fill_template("runs.html", parts, f"opdiff: {len(summary.runs)} runs")


def write_runs_html(summary: RunsSummary, path: Path) -> Path:
    """Write the page through a temporary name."""
    return write_page(path, render_runs_html(summary))

"""``summary_{ts}.json``: the runs of a many-run comparison and the tensors across them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

from opdiff.report.json_document import envelope, json_number, load_schema_file, write_json_document
from opdiff.results.runs_summary import RunEntry, RunsSummary, TensorAcrossRuns

SCHEMA_ID = "opdiff-runs-summary/1"


def load_schema() -> Dict[str, Any]:
    """The JSON Schema of the summary (report/schema/runs-summary.schema.json)."""
    return load_schema_file("runs-summary.schema.json")


def _run_json(run: RunEntry) -> Dict[str, Any]:
    return {
        "device": run.device, "model": run.model, "step": run.step, "status": run.status.value,
        "csv": None if run.csv is None else run.csv.name,
        "compared": run.compared, "failed": run.failed,
        "first_failure": None if run.first_failure is None else {"op": run.first_failure.op, "tensor": run.first_failure.tensor},
        "reason": run.reason, "location": run.location, "my": run.my, "golden": run.golden,
        "files": {kind: path.name for kind, path in run.files.items()},
    }


def _tensor_json(tensor: TensorAcrossRuns) -> Dict[str, Any]:
    return {
        "tensor": tensor.tensor, "op": tensor.op, "op_type": tensor.op_type,
        "metrics": {s.metric: {"worst": json_number(s.worst), "median": json_number(s.median), "best": json_number(s.best)}
                    for s in tensor.spreads},
        "runs_compared": len(tensor.cells), "runs_failing": len(tensor.failing_runs),
        "failing_runs": list(tensor.failing_runs), "first_failure_in": list(tensor.first_failure_in),
    }


def summary_json(summary: RunsSummary) -> Dict[str, Any]:
    return {
        **envelope(SCHEMA_ID, my=summary.my, golden=summary.golden, complete=summary.complete),
        "end": summary.end.value, "stopped_by": summary.stopped_by,
        "missing": [run.label for run in summary.missing],
        "verdict": summary.verdict, "metrics": list(summary.metrics),
        "totals": {"runs": len(summary.runs), "compared": len(summary.compared), "failing": len(summary.failing),
                   "not_compared": len(summary.not_compared)},
        "runs": [_run_json(run) for run in summary.runs],
        "tensors": [_tensor_json(tensor) for tensor in summary.tensors],
    }


def write_summary_json(summary: RunsSummary, path: Path) -> Path:
    """Write the summary through a temporary name."""
    return write_json_document(summary_json(summary), path)

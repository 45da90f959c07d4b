"""The JSON report: every row and every advisor finding, in the documented schema
(python/opdiff/report/schema/report.schema.json). Special floats are strings: "nan", "inf", "-inf"
(JSON has no NaN); "not computed" reference metrics are null."""

from __future__ import annotations

import json
from dataclasses import fields as dataclass_fields
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

from opdiff.numerics.values import Metrics
from opdiff.report.json_document import json_number, report_envelope, row_identity_json, write_json_document
from opdiff.report.tensor.reference_format import NOT_COMPUTED, format_metrics
from opdiff.results import isolation
from opdiff.results.findings import Finding
from opdiff.results.rows import CompareRow
from opdiff.results.tensor_report import Report
from opdiff.results.verdict import VerdictLike

SCHEMA_ID = "opdiff-report/1"
SCHEMA_PATH = Path(__file__).parent.parent / "schema" / "report.schema.json"

def _plain_fields(value: Any, leave_out: Sequence[str] = ()) -> Dict[str, Any]:
    """A dataclass's fields by name, NaN/Inf floats as JSON strings; shallow (dataclasses.asdict
    deep-copies every value, which costs more than the rest of a row)."""
    fields = ((field.name, getattr(value, field.name)) for field in dataclass_fields(value) if field.name not in leave_out)
    return {name: json_number(item) if isinstance(item, float) else item for name, item in fields}


def _metrics_json(m: Metrics, algorithms: Sequence[str]) -> Dict[str, Any]:
    data = _plain_fields(m, leave_out=("x", "y", "notes"))
    for side in ("x", "y"):
        data[side] = _plain_fields(getattr(m, side))
    data["notes"] = [note.value for note in m.notes]
    # The reference's texts too, so scripts that parse the CSV can read the same values here.
    data["reference"] = {name: None if text == NOT_COMPUTED else text for name, text in zip(algorithms, format_metrics(algorithms, m))}
    return data


def local_json(row: CompareRow, verdict: str) -> Dict[str, Any]:
    """A row's local error (--isolate) as the JSON report holds it."""
    local = row.local
    assert local is not None
    m = local.metrics
    return {
        "original_ops": list(local.original_ops), "verdict": verdict,
        "cosine_similarity": json_number(m.cosine_similarity) if m else None,
        "norm_ratio_error": json_number(m.norm_ratio_error) if m else None,
        "max_absolute_error": json_number(m.max_absolute_error) if m else None,
        "amplification": json_number(local.amplification), "reason": local.reason,
        "weight_mismatches": list(local.weight_mismatches),
    }


def row_json(row: CompareRow, algorithms: Sequence[str], failing: bool, local_verdict: Optional[str] = None) -> Dict[str, Any]:
    data = {
        **row_identity_json(row),
        "my_dtype": row.my_dtype,
        "my_address": row.my_address,
        "golden_dtype": row.golden_dtype,
        "golden_address": row.golden_address,
        "shape": list(row.shape) if row.shape is not None else None,
        "overflow": row.overflow,
        "compared": row.compared,
        "failing": failing,
        "reasons": list(row.reasons),
        "metrics": _metrics_json(row.metrics, algorithms) if row.metrics is not None else None,
    }
    if local_verdict is not None:  # only with --isolate: other reports keep their rows as they were
        data["local"] = local_json(row, local_verdict)
    if row.custom:  # only with plug-in algorithms (-c): their texts, as in the CSV
        data["custom"] = dict(row.custom)
    return data


def report_json(report: Report, findings: Sequence[Finding] = (), verdict: VerdictLike = None) -> Dict[str, Any]:
    """The JSON document of a Report (and the advisor's findings), pass and fail by `verdict`."""
    judge = report.verdict(verdict)
    algorithms = list(report.columns.algorithms)
    builtin = [name for name in algorithms if name not in report.columns.custom]  # plug-ins' texts: the rows' "custom"
    failing_ids = {id(row) for row in report.failing(judge)}
    local_judge = isolation.local_judge(report) if isolation.is_isolated_report(report) else None

    def local(row: CompareRow) -> Optional[str]:
        verdict = isolation.local_verdict(row, local_judge) if local_judge is not None else None
        return verdict.value if verdict is not None else None
    return {
        **report_envelope(report, SCHEMA_ID),
        "algorithms": algorithms,
        "verdict": judge.name,
        "thresholds": judge.as_json(),
        "summary": report.summary(judge),
        "rows": [row_json(row, builtin, id(row) in failing_ids, local(row)) for row in report.rows],
        "findings": [
            {"kind": f.kind.value, "op": f.op, "tensor_index": f.tensor_index, "index": f.index, "evidence": f.evidence,
             "advice": f.advice, "chain": [[str(tensor), json_number(cos)] for tensor, cos in f.chain]}
            for f in findings
        ],
        "notes": list(report.notes),
    }


def write_json_report(report: Report, path: Path, findings: Sequence[Finding] = (), verdict: VerdictLike = None) -> Path:
    """Write the JSON report through a temporary name."""
    return write_json_document(report_json(report, findings, verdict), path)


def load_schema() -> Dict[str, Any]:
    schema: Dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema



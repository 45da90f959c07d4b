"""The JSON report of a statistics comparison (schema id ``opdiff-statistics-report/1``): every
row with both sides' statistics and the differences, the verdict's limits, the advisor's findings
and the notes. Special floats are strings ("nan", "inf", "-inf"), as in the tensor JSON report."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence

from opdiff.numerics.tensor_statistics import TensorStatistics
from opdiff.report.json_document import json_number, load_schema_file, report_envelope, row_identity_json, write_json_document
from opdiff.report.statistics.csv_writer import result_of
from opdiff.results.statistics_rows import StatisticsRow
from opdiff.results.statistics_verdict import StatisticsVerdict

if TYPE_CHECKING:
    from opdiff.results.statistics_report import StatisticsReport

SCHEMA_ID = "opdiff-statistics-report/1"


def load_schema() -> Dict[str, Any]:
    """The JSON Schema of the statistics report (report/schema/statistics-report.schema.json)."""
    return load_schema_file("statistics-report.schema.json")


def _side(stats: Optional[TensorStatistics]) -> Optional[Dict[str, Any]]:
    if stats is None:
        return None
    data = {key: json_number(value) if isinstance(value, float) else value for key, value in asdict(stats).items()}
    data["shape"] = list(stats.shape)
    return data


def statistics_row_json(row: StatisticsRow, verdict: StatisticsVerdict) -> Dict[str, Any]:
    d = row.differences
    return {
        **row_identity_json(row),
        "my": _side(row.my),
        "golden": _side(row.golden),
        "my_source": row.my_source,
        "golden_source": row.golden_source,
        "padding_zeros": row.padding,
        "differences": None if d is None else {key: json_number(value) for key, value in asdict(d).items()},
        "result": result_of(row, verdict),
        "violated": [t.metric for t in verdict.violations(row)],
        "reasons": list(row.reasons),
    }


def statistics_report_json(report: StatisticsReport, findings: Sequence[Any] = (),
                           verdict: StatisticsVerdict = StatisticsVerdict()) -> Dict[str, Any]:
    return {
        **report_envelope(report, SCHEMA_ID),
        "verdict": verdict.describe(report.rows),
        "thresholds": [{"metric": t.metric, "value": t.value, "fails_when": "above"} for t in verdict.thresholds],
        "summary": report.summary(verdict),
        "rows": [statistics_row_json(row, verdict) for row in report.rows],
        "findings": [
            {"kind": f.kind.value, "op": f.op, "tensor_index": f.tensor_index, "index": f.index, "evidence": f.evidence,
             "advice": f.advice}
            for f in findings
        ],
        "notes": list(report.notes),
    }


def write_statistics_json(report: StatisticsReport, path: Path, findings: Sequence[Any] = (),
                          verdict: StatisticsVerdict = StatisticsVerdict()) -> Path:
    """Write the JSON report through a temporary name."""
    return write_json_document(statistics_report_json(report, findings, verdict), path)


__all__ = ["SCHEMA_ID", "load_schema", "statistics_report_json", "statistics_row_json", "write_statistics_json"]

"""The isolation CSV of ``opdiff compare --isolate``: one row per output tensor of every NPU op that
maps to the source model, its own (local) error beside its end-to-end error."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import List

from opdiff.fileio.atomic import RESULT_MODE, write_text
from opdiff.report.number_text import csv_number
from opdiff.results.isolation import local_judge, local_verdict
from opdiff.results.rows import CompareRow
from opdiff.results.tensor_report import Report

ISOLATION_COLUMNS = ("NPUDump", "TensorIndex", "OriginalOps", "LocalCosineSimilarity", "LocalNormRatioError",
                     "LocalMaxAbsoluteError", "LocalVerdict", "CosineSimilarity", "NormRatioError", "Amplification", "Reason")




def isolation_cells(row: CompareRow, verdict: str) -> List[str]:
    """One isolation CSV line of a row with a local error (``row.local``)."""
    local = row.local
    assert local is not None
    m, e2e = local.metrics, row.metrics
    reasons = [local.reason] if local.reason else []
    return [
        row.npu_dump, row.tensor_index, ";".join(local.original_ops),
        csv_number(m.cosine_similarity if m else None, ".8f"), csv_number(m.norm_ratio_error if m else None),
        csv_number(m.max_absolute_error if m else None), verdict,
        csv_number(e2e.cosine_similarity if e2e else None, ".8f"), csv_number(e2e.norm_ratio_error if e2e else None),
        csv_number(local.amplification, ".4g"), "; ".join(reasons + list(local.weight_mismatches)),
    ]


def write_isolation_csv(report: Report, path: Path) -> Path:
    """Write the isolation CSV of `report` (rows with a local error, in Index order) through a temporary name."""
    judge = local_judge(report)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(ISOLATION_COLUMNS)
    for row in report.rows:
        verdict = local_verdict(row, judge)
        if verdict is not None:
            writer.writerow(isolation_cells(row, verdict.value))
    return write_text(path, text.getvalue(), mode=RESULT_MODE)

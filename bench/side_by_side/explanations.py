"""Why opdiff's CSV differs from the reference's where it does on purpose. Each rule recognises one
documented difference (docs/metrics.md, docs/compare-differences.md) from the cells and rows alone;
anything else stays unexplained and fails the cross-check."""

from __future__ import annotations

import re
from typing import Dict, Optional

from side_by_side.csv_diff import METRICS, CellDifference

_PADDED_FLAT = re.compile(r"^\[\d+(,1)+\]$")


def _nc1hwc0_against_nd(ours: Dict[str, str], theirs: Dict[str, str]) -> bool:
    """The reference compared a stored 5-D layout flat against an ND golden: its Shape is the
    sliced [n,1,1,1] form, ours the flat length n of the decoded logical tensor."""
    shape = theirs.get("Shape", "")
    return bool(_PADDED_FLAT.match(shape)) and shape.split(",")[0] == ours.get("Shape", "").rstrip("]")


def explain(cell: CellDifference) -> Optional[str]:
    """The documented reason for a differing cell, or None."""
    if cell.column.startswith("DataType") and cell.ours == "bfloat16" and cell.theirs == "float32":
        return "bf16 keeps its name in opdiff; the reference casts bf16 to float32 on load and prints float32 (docs/metrics.md)"
    if (cell.column in METRICS or cell.column == "Shape") and _nc1hwc0_against_nd(cell.row_ours, cell.row_theirs):
        return ("NC1HWC0 dump against an ND golden: the reference compares the stored, channel-padded and C0-interleaved "
                "bytes flat (garbage metrics, Shape [n,1,1,1]); opdiff decodes to the logical layout first "
                "(docs/compare-differences.md)")
    return None


def _no_reason(reason: str) -> bool:
    """No reason but opdiff's note on the flat comparison, or the plug-ins' messages (-c; they come after it)."""
    return reason == "" or reason.startswith(("Failed to execute 'compare' in ", "The shapes differ ("))


def explain_row(ours_only: bool, row: Dict[str, str]) -> Optional[str]:
    """The documented reason for a row only one tool writes, or None."""
    npu_vs_npu = "Address#2" in row  # both sides are NPU dumps only then: two Address columns
    if ours_only and npu_vs_npu and row.get("NPUDump") == row.get("GroundTruth") != "*" and _no_reason(row.get("CompareFailReason", "")):
        return ("NPU vs NPU, dump shapes differ but element counts agree: the reference drops the tensor (only logs "
                "'The shape does not match'); opdiff compares it flat and keeps the row (docs/compare-differences.md)")
    return None

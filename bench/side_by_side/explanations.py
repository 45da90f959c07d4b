"""Why opdiff's CSV differs from the reference's where it does on purpose (docs/metrics.md)."""

from __future__ import annotations

from typing import Optional

from side_by_side.csv_diff import CellDifference


def explain(cell: CellDifference) -> Optional[str]:
    """The documented reason for a difference, or None when it is not a known, deliberate one."""
    return None

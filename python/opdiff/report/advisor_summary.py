"""``advisor_summary.txt``, the reference's three-line summary of the advisor's first finding."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from opdiff.fileio.atomic import RESULT_MODE, write_text
from opdiff.report.file_names import ADVISOR_SUMMARY
from opdiff.results.findings import Finding, FindingKind


def write_advisor_summary(findings: Sequence[Finding], folder: Path, name: str = ADVISOR_SUMMARY) -> Path:
    """``advisor_summary.txt`` as the reference writes it: the first finding in three lines (many
    runs name each run's ``{run}_advisor_summary.txt``)."""
    top = findings[0] if findings else None
    lines = [
        f"Detection Type: {top.kind.value if top else 'NA'}",
        f"Operator Index: {top.index if top and top.kind is not FindingKind.VERDICT else 'NA'}",
        f"Expert Advice: {top.advice if top else 'NA'}",
    ]
    return write_text(folder / name, "\n".join(lines) + "\n", mode=RESULT_MODE)

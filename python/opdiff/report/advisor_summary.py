"""``advisor_summary.txt``, the reference's three-line summary of the advisor's first finding."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from opdiff.report.findings import Finding, FindingKind


def write_advisor_summary(findings: Sequence[Finding], folder: Path) -> Path:
    """``advisor_summary.txt`` as the reference writes it: the first finding in three lines."""
    top = findings[0] if findings else None
    lines = [
        f"Detection Type: {top.kind.value if top else 'NA'}",
        f"Operator Index: {top.index if top and top.kind is not FindingKind.VERDICT else 'NA'}",
        f"Expert Advice: {top.advice if top else 'NA'}",
    ]
    path = folder / "advisor_summary.txt"
    partial = path.with_name(path.name + ".partial")
    partial.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(partial, path)
    return path

"""What a demo did: the line that says what it wrote, the comparison's result and the advisor's
findings. demo/ computes one; commands/demo.py prints it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Union

from opdiff.results.findings import Finding
from opdiff.results.statistics_report import StatisticsReport
from opdiff.results.tensor_report import Report


@dataclass(frozen=True)
class DemoRun:
    """A demo's data, described in one line (rich markup), its result and its findings."""

    description: str
    result: Union[Report, StatisticsReport]
    findings: List[Finding]

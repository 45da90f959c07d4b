"""What the console and notebook views read from a result, as protocols: Report and
StatisticsReport show themselves through these views (``__rich__``, ``_repr_html_``), so the views
must not import the result classes back. Both result classes satisfy these structurally."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional, Protocol

from opdiff.report.rows import CompareRow
from opdiff.report.scenario import Scenario
from opdiff.report.statistics_rows import StatisticsRow
from opdiff.report.statistics_verdict import StatisticsVerdict
from opdiff.report.verdict import Verdict, VerdictLike


class TensorResult(Protocol):
    """What the views read of a :class:`opdiff.report.result.Report`."""

    scenario: Scenario
    my_folder: Path
    golden_folder: Path
    rows: List[CompareRow]
    complete: bool
    notes: List[str]
    csv_path: Optional[Path]

    def verdict(self, verdict: VerdictLike = None) -> Verdict: ...

    def summary(self, verdict: VerdictLike = None) -> Dict[str, int]: ...

    def worst(self, count: int = 10, verdict: VerdictLike = None) -> List[CompareRow]: ...

    def first_failure(self, verdict: VerdictLike = None) -> Optional[CompareRow]: ...


class StatisticsResult(Protocol):
    """What the views read of a :class:`opdiff.report.statistics_result.StatisticsReport`."""

    scenario: Scenario
    my_folder: Path
    golden_folder: Path
    rows: List[StatisticsRow]
    complete: bool
    notes: List[str]

    def summary(self, verdict: StatisticsVerdict = ...) -> Dict[str, int]: ...

    def worst(self, count: int = 10) -> List[StatisticsRow]: ...

    def first_failure(self, verdict: StatisticsVerdict = ...) -> Optional[StatisticsRow]: ...

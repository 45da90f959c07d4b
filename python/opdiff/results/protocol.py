"""What every result offers, and what a result shows itself through.

``Result`` is the surface a tensor comparison (:class:`opdiff.results.tensor_report.Report`) and a
statistics comparison (:class:`opdiff.results.statistics_report.StatisticsReport`) share; the
commands and the format table of report/ read a result through it and pick its writers by
``family``, never by class. The ``*Views`` protocols (TensorViews, StatisticsViews), declared beside
each result class, are what a result calls to show itself in a terminal (``__rich__``), in a notebook
(``_repr_html_``) and to write its CSV: report/ implements them, and whoever builds a result hands it
its views, so that this package imports no writer.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any, Dict, List, Optional, Protocol

from opdiff.results.scenario import Scenario


class ResultFamily(Enum):
    """Which row schema a result holds: its writers, advisor and verdict follow from it."""

    TENSOR = "tensor"  # full dumps: a CompareRow of metrics per tensor pair
    STATISTICS = "statistics"  # statistics dumps on a side: a StatisticsRow of max/min/mean differences


class Result(Protocol):
    """What a comparison's result offers, whatever its family."""

    @property
    def family(self) -> ResultFamily: ...

    scenario: Scenario
    my_folder: Path
    golden_folder: Path
    complete: bool
    notes: List[str]
    csv_path: Optional[Path]

    def summary(self) -> Dict[str, int]: ...

    def first_failure(self, verdict: Any = ...) -> Optional[Any]:
        """The first row in execution order that `verdict` (one of this family's) fails."""
        ...

    def to_csv(self, path: Path) -> Path: ...


def summary_counts(rows: int, compared: int, failing: int) -> Dict[str, int]:
    """What ``Result.summary`` gives, for either family: rows, compared, failing, passing, not compared."""
    return {"rows": rows, "compared": compared, "failing": failing, "passing": compared - failing,
            "not_compared": rows - compared}


def no_views(result: Any, what: str) -> RuntimeError:
    """The error of a result built by hand without views, asked to show or write itself."""
    return RuntimeError(f"this {type(result).__name__} was built without views and cannot {what}: build it with "
                        "views=... (opdiff.report.tensor.views.TENSOR_VIEWS or opdiff.report.statistics.views."
                        "STATISTICS_VIEWS), as opdiff.compare does")


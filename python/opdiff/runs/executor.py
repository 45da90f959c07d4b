"""What an executor does, and how its run ended. Two executors implement it: LocalExecutor (this
machine) and ClusterExecutor (a Dask distributed cluster)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Optional, Protocol, Sequence

from opdiff.results.runs_summary import JobEnd
from opdiff.runs.plan import SideViews
from opdiff.runs.task import RunOutcome, RunTask

OnOutcome = Callable[[RunOutcome], None]


@dataclass(frozen=True)
class Execution:
    end: JobEnd = JobEnd.COMPLETE
    reason: Optional[str] = None


class Executor(Protocol):
    def views(self, my: str, golden: str, step: Optional[int]) -> Dict[str, SideViews]:
        """Each location's view of both sides, with paths as it spells them."""

    def execute(self, tasks: Sequence[RunTask], on_outcome: OnOutcome) -> Execution:
        """Compare the tasks, handing each outcome to `on_outcome` as it arrives (in this thread)."""

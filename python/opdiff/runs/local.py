"""The local executor: runs one after another in this process, each on the core's thread pool (a run
already keeps every core busy, and one run at a time keeps memory what a single comparison needs)."""

from __future__ import annotations

from typing import Dict, Optional, Sequence

from opdiff.results.runs_summary import JobEnd
from opdiff.runs.executor import Execution, OnOutcome
from opdiff.runs.plan import LOCAL, SideViews
from opdiff.runs.task import RunTask, compare_run, view_sides

INTERRUPTED = "interrupted (Ctrl-C)"


class LocalExecutor:
    def views(self, my: str, golden: str, step: Optional[int]) -> Dict[str, SideViews]:
        return {LOCAL: SideViews(*view_sides(my, golden, step, roots=None))}

    def execute(self, tasks: Sequence[RunTask], on_outcome: OnOutcome) -> Execution:
        try:
            for task in tasks:
                outcome = compare_run(task, LOCAL, roots=None)
                if outcome.interrupted:  # compare() caught the Ctrl-C: this run's rows are not whole
                    return Execution(JobEnd.INTERRUPTED, INTERRUPTED)
                on_outcome(outcome)
        except KeyboardInterrupt:
            return Execution(JobEnd.INTERRUPTED, INTERRUPTED)
        return Execution()

"""Types of the names opdiff.runs exports lazily (__init__.py)."""

from opdiff.results.runs_summary import FirstFailure, JobEnd, RunEntry, RunsSummary, RunStatus, TensorAcrossRuns
from opdiff.runs.job import RunsRequest, compare_runs
from opdiff.runs.local import LocalExecutor
from opdiff.runs.task import CompareOptions

__all__ = ["CompareOptions", "FirstFailure", "JobEnd", "LocalExecutor", "RunEntry", "RunStatus", "RunsRequest",
           "RunsSummary", "TensorAcrossRuns", "compare_runs"]

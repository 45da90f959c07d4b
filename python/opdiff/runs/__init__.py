"""Many runs at once: every (device, model, step) of a dump tree compared, on this machine or on a
Dask distributed cluster, and a summary across runs (docs/many-runs.md has an example).
"""

from opdiff.report.runs_summary import FirstFailure, JobEnd, RunEntry, RunsSummary, RunStatus, TensorAcrossRuns
from opdiff.runs.job import RunsRequest, compare_runs
from opdiff.runs.local import LocalExecutor
from opdiff.runs.task import CompareOptions

__all__ = ["CompareOptions", "FirstFailure", "JobEnd", "LocalExecutor", "RunEntry", "RunStatus", "RunsRequest",
           "RunsSummary", "TensorAcrossRuns", "compare_runs"]

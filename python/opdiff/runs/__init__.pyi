"""Types of the names opdiff.runs exports lazily (__init__.py)."""

from opdiff.engine.options import CompareOptions as CompareOptions
from opdiff.results.runs_summary import FirstFailure as FirstFailure
from opdiff.results.runs_summary import JobEnd as JobEnd
from opdiff.results.runs_summary import RunEntry as RunEntry
from opdiff.results.runs_summary import RunsSummary as RunsSummary
from opdiff.results.runs_summary import RunStatus as RunStatus
from opdiff.results.runs_summary import TensorAcrossRuns as TensorAcrossRuns
from opdiff.runs.job import RunsRequest as RunsRequest
from opdiff.runs.job import compare_runs as compare_runs
from opdiff.runs.local import LocalExecutor as LocalExecutor

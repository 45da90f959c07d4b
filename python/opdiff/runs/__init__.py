"""Many runs at once: every (device, model, step) of a dump tree compared, on this machine or on a
Dask distributed cluster, and a summary across runs (docs/many-runs.md has an example).

The names are imported from their modules on first use (PEP 562): a single comparison, which only
asks opdiff.runs.tree whether a side holds many runs, loads none of the rest. Type checkers read
them from ``__init__.pyi``.
"""

from opdiff._lazy_exports import lazy_exports

_EXPORTS = {
    "FirstFailure": "opdiff.results.runs_summary",
    "JobEnd": "opdiff.results.runs_summary",
    "RunEntry": "opdiff.results.runs_summary",
    "RunsSummary": "opdiff.results.runs_summary",
    "RunStatus": "opdiff.results.runs_summary",
    "TensorAcrossRuns": "opdiff.results.runs_summary",
    "RunsRequest": "opdiff.runs.job",
    "compare_runs": "opdiff.runs.job",
    "LocalExecutor": "opdiff.runs.local",
    "CompareOptions": "opdiff.engine.options",
}

# The public names are the table's keys (__init__.pyi lists them again for type checkers;
# tests/package/test_public_api.py keeps the two equal).
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

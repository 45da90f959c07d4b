"""opdiff: operator-level accuracy comparison of neural-network inference dumps.

>>> import numpy as np, opdiff
>>> opdiff.metrics(np.ones(4, np.float16), np.ones(4, np.float32)).cosine_similarity
1.0

The public names are imported on first use (PEP 562), so a command that needs only part of the
package (``opdiff graph`` reads protobuf, not numpy) starts without paying for the rest. Type
checkers read the same names from ``__init__.pyi``; this module imports nothing of opdiff but the
lazy-export helper, so no layer that imports the package root reaches up through it.
"""

from opdiff._lazy_exports import lazy_exports

__version__ = "0.1.0"

# public name -> module that defines it (opdiff.api imports them all at once)
_EXPORTS = {
    "ALGORITHMS": "opdiff.numerics.schema",
    "CORE_DTYPES": "opdiff.numerics.dtypes",
    "RawTensor": "opdiff.numerics.dtypes",
    "Metrics": "opdiff.numerics.values",
    "Note": "opdiff.numerics.values",
    "SideStats": "opdiff.numerics.values",
    "metrics": "opdiff.numerics.core_adapter",
    "simd_info": "opdiff.numerics.core",
    "DumpFile": "opdiff.dumps.reader",
    "DumpFormatError": "opdiff.dumps.reader",
    "read_dump": "opdiff.dumps.reader",
    "write_dump": "opdiff.dumps.writer",
    "read_graph": "opdiff.graph.read",
    "Report": "opdiff.results.tensor_report",
    "RunsSummary": "opdiff.results.runs_summary",
    "compare": "opdiff.engine.comparison",
    "CompareOptions": "opdiff.engine.options",
    "RunsRequest": "opdiff.runs.job",
    "compare_runs": "opdiff.runs.job",
}

# The public names are the table's keys and the version (__init__.pyi imports each one for type
# checkers; tests/package/test_public_api.py keeps the two equal).
__all__ = [*sorted(_EXPORTS), "__version__"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

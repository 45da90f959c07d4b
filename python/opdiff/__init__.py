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

# Every public name comes from the facade module opdiff.api, imported on first use.
_EXPORTS = dict.fromkeys([
    "CORE_DTYPES", "RawTensor", "ALGORITHMS", "Metrics", "Note", "SideStats", "metrics", "simd_info", "DumpFile",
    "DumpFormatError", "read_dump", "write_dump", "read_graph", "Report", "compare", "RunsRequest", "RunsSummary",
    "compare_runs",
], "opdiff.api")

__all__ = [
    "ALGORITHMS",
    "CORE_DTYPES",
    "DumpFile",
    "DumpFormatError",
    "Metrics",
    "Note",
    "RawTensor",
    "Report",
    "RunsRequest",
    "RunsSummary",
    "SideStats",
    "__version__",
    "compare",
    "compare_runs",
    "metrics",
    "read_dump",
    "read_graph",
    "simd_info",
    "write_dump",
]
assert set(__all__) == set(_EXPORTS) | {"__version__"}, "every lazily exported name is listed"


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

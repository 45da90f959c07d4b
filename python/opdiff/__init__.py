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
# Every public name but the version comes from the facade module opdiff.api, imported on first use
# (tests/package/test_public_api.py keeps this list, opdiff.api's and __init__.pyi's the same).
_EXPORTS = dict.fromkeys((name for name in __all__ if name != "__version__"), "opdiff.api")


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

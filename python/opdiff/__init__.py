"""opdiff: operator-level accuracy comparison of neural-network inference dumps.

>>> import numpy as np, opdiff
>>> opdiff.metrics(np.ones(4, np.float16), np.ones(4, np.float32)).cosine_similarity
1.0

The public names are imported on first use (PEP 562), so a command that needs only part of the
package (``opdiff graph`` reads protobuf, not numpy) starts without paying for the rest.
"""

from typing import TYPE_CHECKING

from opdiff._lazy_exports import lazy_exports

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS = {
    "CORE_DTYPES": "opdiff._dtypes",
    "RawTensor": "opdiff._dtypes",
    "ALGORITHMS": "opdiff._metrics",
    "Metrics": "opdiff._metrics",
    "Note": "opdiff._metrics",
    "SideStats": "opdiff._metrics",
    "metrics": "opdiff._metrics",
    "simd_info": "opdiff._metrics",
    "DumpFile": "opdiff.dumps",
    "DumpFormatError": "opdiff.dumps",
    "read_dump": "opdiff.dumps",
    "write_dump": "opdiff.dumps",
    "read_graph": "opdiff.graph",
    "Report": "opdiff.comparison",
    "compare": "opdiff.comparison",
    "RunsRequest": "opdiff.runs",
    "RunsSummary": "opdiff.runs",
    "compare_runs": "opdiff.runs",
}

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
    "compare",
    "compare_runs",
    "metrics",
    "read_dump",
    "read_graph",
    "simd_info",
    "write_dump",
    "__version__",
]
assert set(__all__) == set(_EXPORTS) | {"__version__"}, "every lazily exported name is listed"


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


if TYPE_CHECKING:  # for type checkers and IDEs: the same names, imported eagerly
    from opdiff._dtypes import CORE_DTYPES, RawTensor
    from opdiff._metrics import ALGORITHMS, Metrics, Note, SideStats, metrics, simd_info
    from opdiff.comparison import Report, compare
    from opdiff.dumps import DumpFile, DumpFormatError, read_dump, write_dump
    from opdiff.graph import read_graph
    from opdiff.runs import RunsRequest, RunsSummary, compare_runs

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
    "CORE_DTYPES": "opdiff.numerics.dtypes",
    "RawTensor": "opdiff.numerics.dtypes",
    "ALGORITHMS": "opdiff.numerics.schema",
    "Metrics": "opdiff.numerics.values",
    "Note": "opdiff.numerics.values",
    "SideStats": "opdiff.numerics.values",
    "metrics": "opdiff.numerics.core_adapter",
    "simd_info": "opdiff.numerics.core_adapter",
    "DumpFile": "opdiff.dumps",
    "DumpFormatError": "opdiff.dumps",
    "read_dump": "opdiff.dumps",
    "write_dump": "opdiff.dumps",
    "read_graph": "opdiff.graph",
    "Report": "opdiff.comparison",
    "compare": "opdiff.comparison",
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
    "SideStats",
    "compare",
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
    from opdiff.numerics.dtypes import CORE_DTYPES, RawTensor
    from opdiff.numerics.core_adapter import metrics, simd_info
    from opdiff.numerics.schema import ALGORITHMS
    from opdiff.numerics.values import Metrics, Note, SideStats
    from opdiff.comparison import Report, compare
    from opdiff.dumps import DumpFile, DumpFormatError, read_dump, write_dump
    from opdiff.graph import read_graph

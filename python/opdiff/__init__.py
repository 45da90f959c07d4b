"""opdiff: operator-level accuracy comparison of neural-network inference dumps.

>>> import numpy as np, opdiff
>>> opdiff.metrics(np.ones(4, np.float16), np.ones(4, np.float32)).cosine_similarity
1.0
"""

from opdiff._dtypes import CORE_DTYPES, RawTensor
from opdiff._metrics import ALGORITHMS, Metrics, Note, SideStats, metrics, simd_info
from opdiff.dumps import DumpFile, DumpFormatError, read_dump, write_dump
from opdiff.graph import read_graph
from opdiff.comparison import Report, compare

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
    "SideStats",
    "compare",
    "metrics",
    "read_dump",
    "read_graph",
    "simd_info",
    "write_dump",
    "__version__",
]

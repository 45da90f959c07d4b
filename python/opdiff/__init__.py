"""opdiff: operator-level accuracy comparison of neural-network inference dumps.

>>> import numpy as np, opdiff
>>> opdiff.metrics(np.ones(4, np.float16), np.ones(4, np.float32)).cosine_similarity
1.0
"""

from opdiff._dtypes import CORE_DTYPES, RawTensor
from opdiff._metrics import ALGORITHMS, Metrics, SideStats, metrics, simd_info
from opdiff.graph import read_graph

__version__ = "0.1.0"

__all__ = [
    "ALGORITHMS",
    "CORE_DTYPES",
    "Metrics",
    "RawTensor",
    "SideStats",
    "metrics",
    "read_graph",
    "simd_info",
    "__version__",
]

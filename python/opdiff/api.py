"""The public API of opdiff, in one place: every name ``import opdiff`` offers comes from here
(``opdiff/__init__.py`` re-exports them lazily, so ``import opdiff`` stays cheap).

>>> import numpy as np
>>> from opdiff import api
>>> api.metrics(np.ones(4, np.float16), np.ones(4, np.float32)).cosine_similarity
1.0
"""

from __future__ import annotations

from opdiff.dumps import DumpFile, DumpFormatError, read_dump, write_dump
from opdiff.engine.comparison import compare
from opdiff.graph import read_graph
from opdiff.numerics.core_adapter import metrics
from opdiff.numerics.core_results import simd_info
from opdiff.numerics.dtypes import CORE_DTYPES, RawTensor
from opdiff.numerics.schema import ALGORITHMS
from opdiff.numerics.values import Metrics, Note, SideStats
from opdiff.results.tensor_report import Report
from opdiff.runs import RunsRequest, RunsSummary, compare_runs

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
]

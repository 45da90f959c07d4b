"""The numerics side of the core boundary: the one numerics module that imports `opdiff._core`.

What numerics takes from the core — the metrics pass, its typed results, the dtype names the core
decodes, the SIMD paths, and AllClose's default tolerances — is named here, so that the rest of the
package reads it without knowing the binding (three such adapters in all: this one,
dumps/core_files.py and engine/core_batches.py; an import-linter contract keeps it so)."""

from __future__ import annotations

from typing import Any, Dict, Final, Optional, Tuple

import opdiff._core as _core

# AllClose's tolerances when none are given (docs/metrics.md); CompareOptions and the metrics
# functions take them from here
DEFAULT_RTOL: Final[float] = _core.DEFAULT_RTOL
DEFAULT_ATOL: Final[float] = _core.DEFAULT_ATOL

CoreSideStats = _core.SideStats
CoreMetrics = _core.MetricsResult
core_compute_metrics = _core.compute_metrics

# Every dtype name the core decodes, in its order
CORE_DTYPES: Final[Tuple[str, ...]] = tuple(_core.dtype_names())


def tolerances(rtol: Optional[float], atol: Optional[float]) -> Tuple[float, float]:
    """AllClose's (rtol, atol): the given ones, the defaults for None; ValueError for a negative one."""
    pair = (DEFAULT_RTOL if rtol is None else float(rtol), DEFAULT_ATOL if atol is None else float(atol))
    if not (pair[0] >= 0 and pair[1] >= 0):
        raise ValueError("rtol and atol must be non-negative numbers")
    return pair


def simd_info() -> Dict[str, Any]:
    """Which SIMD kernel path is in use (``active``), which this CPU supports, and why.

    ``OPDIFF_SIMD=scalar|avx2|avx512|neon`` in the environment forces a path at import time.

    >>> import opdiff
    >>> opdiff.simd_info()["active"] in ("scalar", "avx2", "avx512", "neon")
    True
    """
    return dict(_core.simd_info())

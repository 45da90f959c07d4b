"""The SIMD paths this CPU can run, for tests parametrised over every path."""

from __future__ import annotations

import opdiff

SIMD_PATHS = tuple(opdiff.simd_info()["supported"])

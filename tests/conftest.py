import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # test helpers (reference_metrics, metric_checks)

import opdiff  # noqa: E402

SIMD_PATHS = tuple(opdiff.simd_info()["supported"])


@pytest.fixture(params=SIMD_PATHS)
def simd(request: pytest.FixtureRequest) -> str:
    """Every SIMD path this CPU can run."""
    return request.param

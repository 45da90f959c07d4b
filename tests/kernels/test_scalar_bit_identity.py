"""The portable scalar path computes, bit for bit, what it computed before its loop was restructured
for speed (tests/data/scalar_baseline.json, recorded by tools/record_scalar_baseline.py from the
build at the commit it names). Restructuring may remove branches and change the loop's shape, but
never the order of a float64 sum, so every float must come out identical, NaN included."""

from __future__ import annotations

import json
import math
import platform
from typing import Any

import pytest

from opdiff.numerics.core_adapter import compute_metrics
from tests.support import paths
from tests.support.scalar_baseline_cases import CASES, encode, flatten

pytestmark = pytest.mark.kernels

RECORD = json.loads((paths.DATA / "scalar_baseline.json").read_text())

# glibc's log has FMA variants on x86-64 and its own code on aarch64: the KL pass (std::log) is only
# bit-comparable on the machine kind that recorded the baseline. Every other field is plain IEEE
# arithmetic in a fixed order, the same on any machine built without FP contraction.
SAME_MACHINE = platform.machine() == RECORD["machine"]


def same_bits(recorded: Any, now: Any) -> bool:
    if isinstance(recorded, str) and isinstance(now, str) and recorded.startswith(("0x", "-0x", "nan", "inf", "-inf")):
        a, b = float.fromhex(recorded), float.fromhex(now)
        return (math.isnan(a) and math.isnan(b)) or recorded == now
    return recorded == now


def test_every_case_was_recorded() -> None:
    assert set(RECORD["cases"]) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_scalar_path_reproduces_the_recorded_bits(name: str) -> None:
    build, threads = CASES[name]
    x, y = build()
    now = {path: encode(value) for path, value in flatten(compute_metrics(x, y, simd="scalar", threads=threads).as_dict())}
    recorded = RECORD["cases"][name]
    checked = [path for path in recorded if SAME_MACHINE or "kullback" not in path]
    differing = {path: (recorded[path], now.get(path)) for path in checked if not same_bits(recorded[path], now.get(path))}
    assert not differing, f"fields that changed (recorded, now): {differing}"

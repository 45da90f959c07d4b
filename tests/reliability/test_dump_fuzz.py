"""A short fuzz run in the suite (the long one is bench/fuzz_dumps.py): hypothesis mutates valid
dump and .npy files; reading each mutant either works or raises DumpFormatError."""

from __future__ import annotations

import importlib.util
import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import paths

pytestmark = pytest.mark.fuzz

_spec = importlib.util.spec_from_file_location("fuzz_dumps", paths.ROOT / "bench" / "fuzz_dumps.py")
fuzz = importlib.util.module_from_spec(_spec)
sys.modules["fuzz_dumps"] = fuzz  # dataclasses look their module up here
_spec.loader.exec_module(fuzz)


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    return [p.read_bytes() for p in fuzz.make_seeds(tmp_path_factory.mktemp("seeds"))]


def test_seeds_read_cleanly(tmp_path_factory):
    for path in fuzz.make_seeds(tmp_path_factory.mktemp("clean")):
        assert fuzz.exercise(path) == "ok", path


@settings(max_examples=400, deadline=5000, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed_index=st.integers(0, 1000), random_seed=st.integers(0, 2**32 - 1))
def test_mutated_files_never_crash(tmp_path, seeds, seed_index, random_seed):
    data = fuzz.mutate(seeds[seed_index % len(seeds)], random.Random(random_seed))
    path = tmp_path / "Mutant.m.1.1.1700000000000000"
    path.write_bytes(data)
    assert fuzz.exercise(path) in ("ok", "rejected")


@settings(max_examples=200, deadline=5000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=200))
def test_arbitrary_bytes_never_crash(tmp_path, data):
    for name in ("x.bin", "x.npy"):
        path = tmp_path / name
        path.write_bytes(data if name == "x.bin" else b"\x93NUMPY" + data)
        assert fuzz.exercise(path) in ("ok", "rejected")

"""The Python API of opdiff.metrics: dtypes, sizes, errors, threads, SIMD switch."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import opdiff
from opdiff import _core
from opdiff.numerics.core_adapter import compute_metrics


def test_mixed_shapes_with_equal_counts_are_compared_flat() -> None:
    y = np.arange(24, dtype=np.float32)
    m = opdiff.metrics(y.reshape(2, 3, 4).astype(np.float16), y.reshape(4, 6))
    assert m.count == 24 and m.max_absolute_error == 0.0


def test_mismatched_sizes_raise_value_error() -> None:
    with pytest.raises(ValueError, match="element counts differ"):
        opdiff.metrics(np.zeros(3), np.zeros(4))


@pytest.mark.parametrize("dtype", [np.str_, np.object_, np.datetime64])
def test_unsupported_dtype_raises_value_error(dtype) -> None:
    with pytest.raises(ValueError, match="unsupported dtype"):
        opdiff.metrics(np.zeros(3, dtype=dtype), np.zeros(3))


def test_bad_algorithm_and_tolerances_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown algorithm"):
        opdiff.metrics(np.zeros(3), np.zeros(3), algorithms=["Nope"])
    with pytest.raises(ValueError, match="out of range"):
        opdiff.metrics(np.zeros(3), np.zeros(3), algorithms=[10])
    with pytest.raises(ValueError):
        opdiff.metrics(np.zeros(3), np.zeros(3), rtol=-1)


def test_the_allclose_defaults_are_the_cores_and_declared_once() -> None:
    from opdiff.dumps.compare import tensor_metrics
    from opdiff.engine.options import CompareOptions

    assert (_core.DEFAULT_RTOL, _core.DEFAULT_ATOL) == (1e-3, 1e-5)  # as docs/metrics.md says
    y = np.array([1.0, 1.0, 0.0, 0.0])
    x = np.array([1.0 + 0.9e-3 + 1e-5, 1.0 + 1.1e-3 + 1e-5, 0.9e-5, 1.1e-5])  # within, past, within, past
    assert opdiff.metrics(x, y).allclose_fraction == 0.5
    assert opdiff.metrics(x, y, rtol=_core.DEFAULT_RTOL, atol=_core.DEFAULT_ATOL).allclose_fraction == 0.5
    options = inspect.signature(CompareOptions).parameters
    assert (options["rtol"].default, options["atol"].default) == (_core.DEFAULT_RTOL, _core.DEFAULT_ATOL)
    for function in (opdiff.metrics, compute_metrics, tensor_metrics):  # None: the defaults, from one place
        parameters = inspect.signature(function).parameters
        assert (parameters["rtol"].default, parameters["atol"].default) == (None, None)


def test_kl_is_skipped_when_not_selected() -> None:
    m = opdiff.metrics(np.ones(3), np.ones(3), algorithms=[0, "MaxAbsoluteError"])
    assert np.isnan(m.kullback_leibler_divergence)
    assert m.max_absolute_error == 0.0


def test_non_contiguous_and_big_endian_inputs() -> None:
    y = np.arange(200, dtype=np.float64).reshape(20, 10)
    m = opdiff.metrics(y[:, ::2], y[:, ::2].astype(">f8"))
    assert m.count == 100 and m.max_absolute_error == 0.0


def test_contiguous_input_is_not_copied() -> None:
    from opdiff.numerics.dtypes import as_core_operand

    a = np.arange(10, dtype=np.float32)
    operand = as_core_operand(a, "a")
    assert np.shares_memory(operand.buffer, a)


def test_as_dict_and_reference_values() -> None:
    m = opdiff.metrics(np.array([1.0, 2.0]), np.array([1.0, 2.5]))
    d = m.as_dict()
    assert d["x"]["max"] == 2.0 and d["count"] == 2
    assert list(m.reference_values()) == list(opdiff.ALGORITHMS)


def test_packed_int4_raw_tensor_matches_unpacked_values() -> None:
    values = np.array([-8, -1, 0, 1, 7, 3, -5], dtype=np.int8)
    nibbles = (values & 0xF).astype(np.uint8)
    padded = np.append(nibbles, 0)
    packed = (padded[0::2] | (padded[1::2] << 4)).astype(np.uint8)
    raw = opdiff.RawTensor(packed, "int4", values.size)
    np.testing.assert_array_equal(_core.decode_to_float64(packed, "int4", values.size), values)
    assert opdiff.metrics(raw, values).max_absolute_error == 0.0


def test_ml_dtypes_int4_arrays_are_read_as_their_values() -> None:
    values = np.array([-8, -1, 0, 7], dtype=ml_dtypes.int4)
    assert opdiff.metrics(values, np.array([-8, -1, 0, 7], np.float32)).max_absolute_error == 0.0


def test_result_does_not_depend_on_threads(simd: str) -> None:
    rng = np.random.default_rng(7)
    y = rng.standard_normal(1_000_003).astype(np.float32)
    x = (y + rng.standard_normal(y.size).astype(np.float32) * 1e-3).astype(np.float16)
    one = compute_metrics(x, y, threads=1, simd=simd)
    two = compute_metrics(x, y, threads=2, simd=simd)
    many = compute_metrics(x, y, threads=7, simd=simd)
    assert one == two == many


def test_gil_is_released_while_kernels_run() -> None:
    """A Python thread keeps running while one metrics call runs.

    No machine speed is assumed: the ticker's own period is measured first, and the tensor doubles until
    one call lasts twenty periods. A call that held the GIL would let at most a tick or two through.
    """
    import itertools
    import threading
    import time

    ticks: list[float] = []
    stop = threading.Event()

    def ticker() -> None:
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0005)

    thread = threading.Thread(target=ticker)
    thread.start()
    try:
        while len(ticks) < 21:
            time.sleep(0.005)
        intervals = sorted(b - a for a, b in itertools.pairwise(ticks[:21]))
        period = intervals[len(intervals) // 2]
        rng = np.random.default_rng(0)
        size = 1 << 16
        while True:
            y = rng.standard_normal(size).astype(np.float32)
            start = time.perf_counter()
            opdiff.metrics(y, y, threads=1)
            elapsed = time.perf_counter() - start
            if elapsed >= 20 * period or size >= 1 << 27:
                break
            size *= 2
    finally:
        stop.set()
        thread.join()
    assert elapsed >= 20 * period, f"one call of {size} elements took {elapsed:.4f} s, under 20 ticks of {period:.5f} s"
    assert len([t for t in ticks if start <= t <= start + elapsed]) >= 5


@pytest.mark.parametrize("path", opdiff.simd_info()["supported"])
def test_opdiff_simd_environment_variable_forces_a_path(path: str) -> None:
    code = (
        "import numpy as np, opdiff, json;"
        "m = opdiff.metrics(np.arange(100, dtype=np.float16), np.arange(100, dtype=np.float32) + 0.5);"
        "print(json.dumps([opdiff.simd_info(), m.max_absolute_error]))"
    )
    env = dict(os.environ, OPDIFF_SIMD=path)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    import json

    info, max_error = json.loads(out.stdout)
    assert info["active"] == path and info["forced_by"] == path
    assert max_error == 0.5


def test_unavailable_simd_request_falls_back_loudly() -> None:
    # A path this machine cannot run: neon on x86-64, avx512 on aarch64.
    unavailable = next(path for path in ("neon", "avx512", "avx2") if path not in opdiff.simd_info()["supported"])
    env = dict(os.environ, OPDIFF_SIMD=unavailable)
    code = "import opdiff; print(opdiff.simd_info()['active'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert "not available" in out.stderr
    assert out.stdout.strip() == opdiff.simd_info()["supported"][0]


def _metrics_in_child(queue) -> None:
    y = np.arange(1_000_000, dtype=np.float32)
    queue.put(opdiff.metrics(y, y, threads=2).max_absolute_error)


def test_threads_work_in_a_forked_child() -> None:
    import multiprocessing

    y = np.arange(1_000_000, dtype=np.float32)
    opdiff.metrics(y, y, threads=2)  # the parent's pool exists before the fork
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_metrics_in_child, args=(queue,))
    child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
    assert child.exitcode == 0, "child hung or failed"
    assert queue.get(timeout=5) == 0.0


def test_metrics_from_core_reads_every_field_of_the_typed_result():
    import dataclasses

    from opdiff.numerics.core_results import metrics_from_core
    from opdiff.numerics.values import Metrics, Note, SideStats

    x, y = np.array([0.0, 0.0, 3.0], np.float32), np.array([0.0, 0.0, 0.0], np.float32)
    result = _core.compute_metrics(x, "float32", 3, y, "float32", 3)
    assert isinstance(result, _core.MetricsResult) and isinstance(result.x, _core.SideStats)
    converted = metrics_from_core(result)
    side_fields = [f.name for f in dataclasses.fields(SideStats)]
    sides = {side: SideStats(**{name: getattr(getattr(result, side), name) for name in side_fields}) for side in ("x", "y")}
    fields = {f.name: getattr(result, f.name) for f in dataclasses.fields(Metrics) if f.name not in ("x", "y", "notes")}
    # repr: the cosine is NaN (golden all zero), and NaN != NaN
    assert repr(converted) == repr(Metrics(**fields, **sides, notes=(Note.GOLDEN_ZERO,)))
    assert converted.x.max == 3.0 and converted.y.max == 0.0 and converted.count == 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        converted.count = 4  # type: ignore[misc]  # still frozen

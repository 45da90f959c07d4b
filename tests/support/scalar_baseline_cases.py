"""Test vectors for the scalar path's bit-identity check (tests/kernels/test_scalar_bit_identity.py).

Each case is a pair the portable scalar kernels must reduce to exactly the same metrics, bit for
bit, as the build that recorded tests/data/scalar_baseline.json (tools/record_scalar_baseline.py).
They cover every dtype the decoder knows, NaN / Inf / zero goldens, block (4096) and chunk (65536)
boundaries, tails, large means and two threads."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

import ml_dtypes
import numpy as np

from opdiff import RawTensor

Pair = Tuple[Any, Any]
BLOCK = 4096
CHUNK = 65536


def _noisy(n: int, seed: int, scale: float = 1.0, noise: float = 1e-3) -> Tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    golden = rng.standard_normal(n) * scale
    return golden * (1 + rng.standard_normal(n) * noise), golden


def _fp16_vs_fp32() -> Pair:
    x, y = _noisy(3 * CHUNK + 1234, 1)
    return x.astype(np.float16), y.astype(np.float32)


def _bf16_vs_fp32() -> Pair:
    x, y = _noisy(2 * CHUNK + 17, 2)
    return x.astype(ml_dtypes.bfloat16), y.astype(np.float32)


def _fp32_specials() -> Pair:
    x, y = _noisy(5 * BLOCK + 3, 3)
    x, y = x.astype(np.float32), y.astype(np.float32)
    rng = np.random.default_rng(33)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], np.float32)
    for side in (x, y):
        where = rng.random(side.size) < 0.01
        side[where] = rng.choice(specials, int(where.sum()))
    return x, y


def _fp16_every_pattern() -> Pair:
    patterns = np.arange(1 << 16, dtype=np.uint16).view(np.float16)  # subnormals, Inf, NaN payloads
    with np.errstate(invalid="ignore"):
        golden = np.roll(patterns, 12345).astype(np.float32)
    return patterns, golden


def _bf16_every_pattern() -> Pair:
    patterns = np.arange(1 << 16, dtype=np.uint16).view(ml_dtypes.bfloat16)
    golden = np.arange(1 << 16, dtype=np.uint16)[::-1].copy().view(ml_dtypes.bfloat16)
    return patterns, golden


def _fp32_zero_and_tiny_golden() -> Pair:
    x, y = _noisy(BLOCK + 77, 4)
    y[::7] = 0.0
    y[3::11] = 1e-300  # below 2^-52 after float32 rounding: 0
    y[5::13] = np.finfo(np.float32).tiny / 4  # float32 subnormal, above 2^-52? no: contributes 0
    return x.astype(np.float32), y.astype(np.float32)


def _fp32_infinite_golden() -> Pair:
    x, y = _noisy(999, 5)
    y[::50] = np.inf
    y[25::50] = -np.inf
    x[::100] = np.inf
    return x.astype(np.float32), y.astype(np.float32)


def _float64_large_mean() -> Pair:
    x, y = _noisy(CHUNK + 4099, 6, scale=1e-3)
    return x + 3e7, y + 3e7


def _float64_overflowing_differences() -> Pair:
    """Finite values whose differences overflow to Inf: such blocks leave the fast loops."""
    x, y = _noisy(2 * BLOCK + 11, 14)
    x[100::500] = 1.5e308
    y[100::500] = -1.7e308
    x[4200] = -np.finfo(np.float64).max
    y[4200] = np.finfo(np.float64).max
    return x, y


def _relu_like() -> Pair:
    """Half of the golden zero at random places: a branch on the zero golden would mispredict."""
    x, y = _noisy(3 * BLOCK + 1, 15)
    y = np.maximum(y, 0.0)
    return np.maximum(x, 0.0).astype(np.float16), y.astype(np.float32)


def _int8_vs_fp32() -> Pair:
    x, y = _noisy(2 * BLOCK + 5, 7, scale=30.0)
    return np.clip(np.round(x), -127, 127).astype(np.int8), y.astype(np.float32)


def _integers() -> Pair:
    rng = np.random.default_rng(8)
    return rng.integers(-(2**40), 2**40, 3 * BLOCK + 1).astype(np.int64), rng.integers(0, 2**31, 3 * BLOCK + 1).astype(np.uint32)


def _small_integers() -> Pair:
    rng = np.random.default_rng(9)
    n = BLOCK + 9
    return rng.integers(-300, 300, n).astype(np.int16), rng.integers(0, 600, n).astype(np.uint16)


def _fp8_pair() -> Pair:
    rng = np.random.default_rng(10)
    bits = rng.integers(0, 256, BLOCK * 2 + 1, dtype=np.uint8)
    return bits.view(ml_dtypes.float8_e4m3fn), np.roll(bits, 3).view(ml_dtypes.float8_e5m2)


def _hifloat8_vs_int4() -> Pair:
    rng = np.random.default_rng(11)
    n = BLOCK + 513
    hif8 = rng.integers(0, 256, n, dtype=np.uint8)
    packed = rng.integers(0, 256, (n + 1) // 2, dtype=np.uint8)
    return RawTensor(hif8, "hifloat8", n), RawTensor(packed, "int4", n)


def _bool_vs_uint8() -> Pair:
    rng = np.random.default_rng(12)
    return rng.integers(0, 2, 5000).astype(bool), rng.integers(0, 3, 5000).astype(np.uint8)


def _complex64() -> Pair:
    rng = np.random.default_rng(13)
    y = (rng.standard_normal(3001) + 1j * rng.standard_normal(3001)).astype(np.complex64)
    return (y * (1 + 1e-3j)).astype(np.complex64), y


def _tiny_sizes() -> Pair:
    return np.array([1.5, -2.0, 3.25], np.float16), np.array([1.5, -2.5, 3.0], np.float32)


def _constant_sides() -> Pair:
    return np.full(4097, 2.0, np.float32), np.full(4097, 2.0, np.float16)


def _bench_pair_1m() -> Pair:
    """bench/bench_metrics.py's fp16 vs fp32 pair, at 1M elements."""
    n = 1 << 20
    rng = np.random.default_rng(0)
    golden = rng.standard_normal(n, dtype=np.float32)
    noisy = golden * (1 + rng.standard_normal(n, dtype=np.float32) * np.float32(1e-3))
    return noisy.astype(np.float16), golden


# name -> (pair builder, threads)
CASES: Dict[str, Tuple[Callable[[], Pair], int]] = {
    "fp16_vs_fp32": (_fp16_vs_fp32, 1),
    "fp16_vs_fp32_two_threads": (_fp16_vs_fp32, 2),
    "bf16_vs_fp32": (_bf16_vs_fp32, 1),
    "fp32_specials": (_fp32_specials, 1),
    "fp16_every_pattern": (_fp16_every_pattern, 1),
    "bf16_every_pattern": (_bf16_every_pattern, 1),
    "fp32_zero_and_tiny_golden": (_fp32_zero_and_tiny_golden, 1),
    "fp32_infinite_golden": (_fp32_infinite_golden, 1),
    "float64_large_mean": (_float64_large_mean, 2),
    "float64_overflowing_differences": (_float64_overflowing_differences, 1),
    "relu_like_fp16_vs_fp32": (_relu_like, 1),
    "int8_vs_fp32": (_int8_vs_fp32, 1),
    "int64_vs_uint32": (_integers, 1),
    "int16_vs_uint16": (_small_integers, 1),
    "fp8_e4m3fn_vs_e5m2": (_fp8_pair, 1),
    "hifloat8_vs_int4": (_hifloat8_vs_int4, 1),
    "bool_vs_uint8": (_bool_vs_uint8, 1),
    "complex64": (_complex64, 1),
    "tiny": (_tiny_sizes, 1),
    "constant_sides": (_constant_sides, 1),
    "bench_fp16_vs_fp32_1m": (_bench_pair_1m, 1),
}


def flatten(value: Any, prefix: str = "") -> List[Tuple[str, Any]]:
    """(field path, value) of a Metrics as_dict(), nested dicts flattened with dots."""
    items: List[Tuple[str, Any]] = []
    for key, item in value.items():
        path = f"{prefix}{key}"
        if isinstance(item, dict):
            items.extend(flatten(item, path + "."))
        else:
            items.append((path, item))
    return items


def encode(value: Any) -> Any:
    """A JSON value that keeps every bit: floats as float.hex(), notes as their text."""
    if isinstance(value, float):
        return value.hex()
    if isinstance(value, (tuple, list)):
        return [getattr(v, "value", v) for v in value]
    return value

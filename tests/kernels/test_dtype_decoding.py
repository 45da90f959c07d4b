"""The core's decoding table against numpy / ml_dtypes and the HiFloat8 paper."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from opdiff import _core

pytestmark = pytest.mark.kernels


def decode(values: np.ndarray, dtype: str) -> np.ndarray:
    return _core.decode_to_float64(np.ascontiguousarray(values).view(np.uint8), dtype, values.size)


@pytest.mark.parametrize(
    ("name", "dtype"),
    [
        ("float16", np.float16),
        ("bfloat16", ml_dtypes.bfloat16),
        ("float8_e4m3fn", ml_dtypes.float8_e4m3fn),
        ("float8_e5m2", ml_dtypes.float8_e5m2),
    ],
)
def test_every_bit_pattern_of_narrow_floats(name: str, dtype) -> None:
    width = np.dtype(dtype).itemsize
    patterns = np.arange(2 ** (8 * width), dtype=f"u{width}")
    with np.errstate(invalid="ignore"):  # NaN patterns
        expected = patterns.view(dtype).astype(np.float64)
    np.testing.assert_array_equal(decode(patterns, name), expected)


@pytest.mark.parametrize("name", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool"])
def test_integers_decode_to_their_values(name: str) -> None:
    info = np.iinfo(name) if name != "bool" else None
    values = np.array([0, 1, 2, 3] if info is None else [info.min, -1 if info.min else 0, 0, 1, info.max], name)
    np.testing.assert_array_equal(decode(values, name), values.astype(np.float64))


def test_complex_decodes_to_interleaved_parts() -> None:
    values = np.array([1 + 2j, -3.5 - 0.25j], np.complex64)
    np.testing.assert_array_equal(decode(values, "complex64"), [1, 2, -3.5, -0.25])


def hifloat8(byte: int) -> float:
    return float(decode(np.array([byte], np.uint8), "hifloat8")[0])


def test_hifloat8_special_patterns() -> None:
    assert hifloat8(0x00) == 0.0
    assert math.isnan(hifloat8(0x80))
    assert hifloat8(0x6F) == math.inf and hifloat8(0xEF) == -math.inf


@pytest.mark.parametrize(
    ("byte", "value"),
    [
        (0b0_0001_000, 1.0),  # D=0: 2^0 * 1.0
        (0b0_0001_111, 1.875),  # D=0, mantissa 7/8
        (0b0_001_0_000, 2.0),  # D=1, exponent +1
        (0b0_001_1_100, 0.75),  # D=1, exponent -1, mantissa 4/8
        (0b0_01_00_000, 4.0),  # D=2, exponent +2
        (0b0_01_11_001, 2.0**-3 * 1.125),  # D=2, exponent -(2+1)
        (0b0_10_000_00, 16.0),  # D=3, exponent +4
        (0b0_10_111_11, 2.0**-7 * 1.75),  # D=3, exponent -7
        (0b0_11_0000_0, 256.0),  # D=4, exponent +8
        (0b0_11_0111_0, 32768.0),  # D=4, exponent +15: the largest finite value
        (0b0_11_1111_1, 2.0**-15 * 1.5),  # D=4, exponent -15
        (0b0_0000_001, 2.0**-22),  # denormal 2^(m-23)
        (0b0_0000_111, 2.0**-16),
        (0b1_0001_000, -1.0),
    ],
)
def test_hifloat8_values_follow_the_paper(byte: int, value: float) -> None:
    assert hifloat8(byte) == value


def test_hifloat8_is_monotonic_over_positive_patterns() -> None:
    positives = [hifloat8(b) for b in range(0x00, 0x80) if b != 0x6F]
    ordered = sorted((v, b) for b, v in zip(range(0x80), positives))
    assert len(set(positives)) == len(positives)  # every pattern a distinct value
    assert all(math.isfinite(v) for v, _ in ordered)


def test_hifloat8_all_patterns_match_independent_decoder() -> None:
    from tests.support.reference_decoders import hifloat8_values

    patterns = np.arange(256, dtype=np.uint8)
    np.testing.assert_array_equal(decode(patterns, "hifloat8"), hifloat8_values(patterns))


def test_int4_all_byte_patterns_match_independent_decoder() -> None:
    from tests.support.reference_decoders import unpack_int4

    packed = np.arange(256, dtype=np.uint8)
    np.testing.assert_array_equal(_core.decode_to_float64(packed, "int4", 512), unpack_int4(packed, 512))

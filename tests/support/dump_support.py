"""Helpers shared by the dump tests: logical test data per dtype, an independent HiFloat8
decoder, and a raw v2 writer that stores an already laid-out array (bypassing opdiff's writer)."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Sequence

import ml_dtypes
import numpy as np

from opdiff.dumps import dump_data_pb2 as pb

DTYPES = (
    "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "hifloat8", "int4", "int8", "uint8",
    "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool", "float64", "complex64", "complex128",
)  # fmt: skip


def hifloat8_value(code: int) -> float:
    """HiFloat8 per the paper (docs/reference/reference-tool.md Appendix A), written independently of the core."""
    sign = -1.0 if code & 0x80 else 1.0
    if code == 0x00:
        return 0.0
    if code == 0x80:
        return float("nan")
    if code & 0x7F == 0x6F:
        return sign * float("inf")
    bits = code & 0x7F  # 7 bits after the sign
    if bits >> 5 == 0b11:
        d, rest, rest_bits = 4, bits & 0x1F, 5
    elif bits >> 5 == 0b10:
        d, rest, rest_bits = 3, bits & 0x1F, 5
    elif bits >> 5 == 0b01:
        d, rest, rest_bits = 2, bits & 0x1F, 5
    elif bits >> 4 == 0b001:
        d, rest, rest_bits = 1, bits & 0x0F, 4
    elif bits >> 3 == 0b0001:
        d, rest, rest_bits = 0, bits & 0x07, 3
    else:  # denormal: 0000 mmm
        m = bits & 0x07
        return sign * 2.0 ** (m - 23)
    mantissa_bits = rest_bits - d
    mantissa = rest & ((1 << mantissa_bits) - 1)
    exponent_field = rest >> mantissa_bits
    if d == 0:
        exponent = 0
    else:
        exp_sign = -1 if exponent_field >> (d - 1) else 1
        magnitude = exponent_field & ((1 << (d - 1)) - 1)
        exponent = exp_sign * ((1 << (d - 1)) + magnitude)
    return sign * 2.0**exponent * (1 + mantissa / 2**mantissa_bits)


def logical_data(dtype: str, shape: Sequence[int], seed: int = 0) -> np.ndarray:
    """Random values exactly representable in `dtype` (hifloat8: uint8 codes; int4: int8 in -8..7)."""
    rng = np.random.default_rng(seed)
    if dtype == "hifloat8":
        return rng.integers(0, 256, size=shape, dtype=np.uint8)
    if dtype == "int4":
        return rng.integers(-8, 8, size=shape, dtype=np.int8)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape, dtype=dtype)
    if dtype.startswith("complex"):
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)
    target = np.dtype(getattr(ml_dtypes, dtype)) if hasattr(ml_dtypes, dtype) and dtype not in ("float32", "float16", "float64") else np.dtype(dtype)
    return rng.normal(scale=4.0, size=shape).astype(target)


def expected_logical(dtype: str, data: np.ndarray) -> np.ndarray:
    """What read_dump(...).to_numpy() must return for the written logical `data`."""
    if dtype == "hifloat8":
        return np.vectorize(hifloat8_value, otypes=[np.float32])(data)
    return data


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit-exact equality (shape and dtype included; NaN payloads compared as bits)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return np.array_equal(np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8))


def write_raw_v2(path: Path, stored: np.ndarray, data_type: int, format: int, original_shape: Sequence[int] = (), sub_format: int = 0) -> Path:
    """A v2 dump with one output whose stored array is given as is (header via protobuf)."""
    header = pb.DumpData(version="2.0", op_name="raw")
    out = header.output.add(data_type=data_type, format=format, size=stored.nbytes, sub_format=sub_format)
    out.shape.dim.extend(stored.shape)
    out.original_shape.dim.extend(original_shape)
    message = header.SerializeToString()
    path.write_bytes(struct.pack("<Q", len(message)) + message + np.ascontiguousarray(stored).tobytes())
    return path

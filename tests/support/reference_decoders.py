"""Independent Python decoders for element types numpy cannot hold (written from the format
descriptions, not from the core), used as references in the tests."""

from __future__ import annotations

import math

import numpy as np


def hifloat8_value(byte: int) -> float:
    """HiFloat8 per Luo et al. 2024 (docs/reference/reference-tool.md, Appendix A)."""
    if byte == 0x80:
        return math.nan
    if byte in (0x6F, 0xEF):
        return math.inf if byte == 0x6F else -math.inf
    sign = -1.0 if byte & 0x80 else 1.0
    bits = format(byte & 0x7F, "07b")
    for prefix, dot in (("11", 4), ("10", 3), ("01", 2), ("001", 1), ("0001", 0)):
        if bits.startswith(prefix):
            rest = bits[len(prefix) :]
            exponent_bits, mantissa_bits = rest[:dot], rest[dot:]
            exponent = 0
            if dot:
                magnitude = int(exponent_bits[1:] or "0", 2)
                exponent = (1 << (dot - 1)) + magnitude
                if exponent_bits[0] == "1":
                    exponent = -exponent
            mantissa = int(mantissa_bits, 2) / (1 << len(mantissa_bits))
            return sign * 2.0**exponent * (1 + mantissa)
    m = int(bits[4:], 2)  # prefix 0000: denormal
    return sign * (0.0 if m == 0 else 2.0 ** (m - 23))


def hifloat8_values(data: np.ndarray) -> np.ndarray:
    table = np.array([hifloat8_value(b) for b in range(256)])
    return table[np.asarray(data, np.uint8)]


def unpack_int4(packed: np.ndarray, count: int) -> np.ndarray:
    """Two's-complement nibbles, low nibble first."""
    packed = np.asarray(packed, np.uint8)
    nibbles = np.empty(packed.size * 2, np.int16)
    nibbles[0::2] = packed & 0xF
    nibbles[1::2] = packed >> 4
    nibbles = np.where(nibbles >= 8, nibbles - 16, nibbles)
    return nibbles[:count].astype(np.float64)

"""CRC-32C (Castagnoli), as TFRecord framing checks it, and its "masked" form.

The C implementation of the ``google-crc32c`` package is used where it is installed (gigabytes a
second); otherwise a table-driven one in Python (a few MB a second: fine for tests, slow for big
dumps, so the readers say which one checked their streams)."""

from __future__ import annotations

from typing import Callable, List, Optional

_POLYNOMIAL = 0x82F63B78  # CRC-32C, reflected
_MASK_DELTA = 0xA282EAD8  # TFRecord's mask constant


def _table() -> List[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ (_POLYNOMIAL if crc & 1 else 0)
        table.append(crc)
    return table


_TABLE = _table()


def crc32c_python(data: bytes) -> int:
    """CRC-32C of `data`, byte by byte.

    >>> hex(crc32c_python(b"123456789"))
    '0xe3069283'
    """
    crc = 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _fast() -> Optional[Callable[[bytes], int]]:
    try:
        import google_crc32c  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    if getattr(google_crc32c, "implementation", "c") != "c":
        return None
    value: Callable[[bytes], int] = google_crc32c.value
    return value


_FAST = _fast()
IMPLEMENTATION = "google-crc32c (C)" if _FAST is not None else "Python (install google-crc32c for speed)"


def crc32c(data: bytes) -> int:
    """CRC-32C of `data` by the fastest implementation at hand.

    >>> crc32c(b"123456789") == crc32c_python(b"123456789")
    True
    """
    return _FAST(data) if _FAST is not None else crc32c_python(data)


def masked_crc32c(data: bytes) -> int:
    """The masked CRC TFRecord stores: rotated right by 15 bits, plus a constant.

    >>> hex(masked_crc32c(b""))
    '0xa282ead8'
    """
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF

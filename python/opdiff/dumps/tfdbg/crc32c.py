"""CRC-32C (Castagnoli), as TFRecord framing checks it, and its "masked" form.

The C implementation of the ``google-crc32c`` package is used where it is installed (gigabytes a
second); otherwise numpy lanes (crc32c_lanes.py: about 150 MB a second on megabyte records) and,
for short data, a table-driven loop in Python (a few MB a second)."""

from __future__ import annotations

from typing import Callable, Optional

from opdiff.dumps.tfdbg.crc32c_lanes import continue_crc32c, crc32c_lanes

_MASK_DELTA = 0xA282EAD8  # TFRecord's mask constant


def crc32c_python(data: bytes) -> int:
    """CRC-32C of `data`, byte by byte.

    >>> hex(crc32c_python(b"123456789"))
    '0xe3069283'
    """
    return continue_crc32c(0xFFFFFFFF, data) ^ 0xFFFFFFFF


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
IMPLEMENTATION = "google-crc32c (C)" if _FAST is not None else "numpy lanes (install google-crc32c for speed)"


def crc32c(data: bytes) -> int:
    """CRC-32C of `data` by the fastest implementation at hand.

    >>> crc32c(b"123456789") == crc32c_python(b"123456789")
    True
    """
    return _FAST(data) if _FAST is not None else crc32c_lanes(data)


def masked_crc32c(data: bytes) -> int:
    """The masked CRC TFRecord stores: rotated right by 15 bits, plus a constant.

    >>> hex(masked_crc32c(b""))
    '0xa282ead8'
    """
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF

"""How a number reads in the text a person sees (console tables and lines) and in opdiff's own
CSVs: each style once. The reference-compatible CSV's rules (``%.6f``, ``NaN``) are
report/tensor/reference_format.py's, kept apart because they follow the reference tool.

>>> fixed(0.25), fixed(float("nan")), fixed_or_dash(float("inf")), significant(1234567.0)
('0.250000', 'nan', '-', '1.23457e+06')
>>> csv_number(None), csv_number(float("-inf")), csv_number(0.5, ".8f")
('NaN', '-inf', '0.50000000')
"""

from __future__ import annotations

import math
from typing import Optional


def fixed(value: float) -> str:
    """Six decimals, as the CSV writes the metrics; NaN as ``nan``."""
    return "nan" if math.isnan(value) else f"{value:.6f}"


def fixed_or_dash(value: float) -> str:
    """Six decimals; ``-`` where there is no finite value (an element view's NaN or Inf)."""
    return f"{value:.6f}" if math.isfinite(value) else "-"


def significant(value: float) -> str:
    """Six significant digits: statistics span many magnitudes."""
    return f"{value:.6g}"


def csv_number(value: Optional[float], digits: str = ".6g") -> str:
    """A cell of opdiff's own CSVs: ``NaN`` for a missing or NaN value, ``inf``/``-inf`` spelled out."""
    if value is None or math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return format(value, digits)


__all__ = ["csv_number", "fixed", "fixed_or_dash", "significant"]

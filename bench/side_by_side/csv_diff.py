"""Row-by-row comparison of two network result CSVs (opdiff's and the reference's).

Rows are matched by (Index, NPUDump, GroundTruth, TensorIndex) and, for repeats of that key, by
order. Metric cells agree when both are numbers within 1e-4 relative (plus one unit of the sixth
printed decimal, since both tools print ``%.6f``) or when both hold the same non-numeric token
(``NaN``, ``nan``, ``inf``); StandardDeviation is compared part by part. Every other cell must be
identical text.
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

METRICS = (
    "CosineSimilarity", "MaxAbsoluteError", "AccumulatedRelativeError", "RelativeEuclideanDistance",
    "KullbackLeiblerDivergence", "StandardDeviation", "MeanAbsoluteError", "RootMeanSquareError",
    "MaxRelativeError", "MeanRelativeError",
)  # fmt: skip
KEY_COLUMNS = ("Index", "NPUDump", "GroundTruth", "TensorIndex")
RELATIVE_TOLERANCE = 1e-4
PRINT_UNIT = 1e-6  # one unit of the last decimal of %.6f

RowKey = Tuple[str, ...]


class Agreement(str, Enum):
    IDENTICAL = "identical text"
    WITHIN_TOLERANCE = "numerically equal within tolerance"
    DIFFERENT = "different"


@dataclass(frozen=True)
class CellDifference:
    key: RowKey
    column: str
    ours: str
    theirs: str
    agreement: Agreement
    row_ours: Dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    row_theirs: Dict[str, str] = field(default_factory=dict, compare=False, repr=False)


@dataclass
class CsvDiff:
    header_ours: List[str]
    header_theirs: List[str]
    rows_ours: int = 0
    rows_theirs: int = 0
    matched_rows: int = 0
    only_ours: List[Tuple[RowKey, Dict[str, str]]] = field(default_factory=list)
    only_theirs: List[Tuple[RowKey, Dict[str, str]]] = field(default_factory=list)
    order_differs: bool = False
    cells: Counter = field(default_factory=Counter)  # Agreement -> count, over compared cells
    differences: List[CellDifference] = field(default_factory=list)  # WITHIN_TOLERANCE and DIFFERENT

    @property
    def same_columns(self) -> bool:
        return self.header_ours == self.header_theirs

    @property
    def agrees(self) -> bool:
        return (self.same_columns and not self.only_ours and not self.only_theirs and not self.order_differs
                and self.cells[Agreement.DIFFERENT] == 0)


def column_names(header: Sequence[str]) -> List[str]:
    """Header names made unique: the reference repeats DataType and Address for the golden side."""
    seen: Counter = Counter()
    names = []
    for name in header:
        seen[name] += 1
        names.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return names


def _read(path: Path) -> Tuple[List[str], List[Dict[str, str]]]:
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header = rows[0] if rows else []
    names = column_names(header)
    return header, [dict(zip(names, row)) for row in rows[1:]]


def _keyed(rows: List[Dict[str, str]]) -> List[Tuple[RowKey, Dict[str, str]]]:
    seen: Counter = Counter()
    out = []
    for row in rows:
        base = tuple(row.get(column, "") for column in KEY_COLUMNS)
        seen[base] += 1
        out.append((base + (str(seen[base]),), row))
    return out


def _number(text: str) -> Optional[float]:
    try:
        return float(text)
    except ValueError:
        return None


def numbers_agree(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return abs(a - b) <= RELATIVE_TOLERANCE * max(abs(a), abs(b)) + PRINT_UNIT


def metric_agreement(ours: str, theirs: str) -> Agreement:
    if ours == theirs:
        return Agreement.IDENTICAL
    if ours.startswith("(") and theirs.startswith("("):  # StandardDeviation: (m;s),(m;s), %.3f
        parts_ours = ours.replace("(", "").replace(")", "").replace(",", ";").split(";")
        parts_theirs = theirs.replace("(", "").replace(")", "").replace(",", ";").split(";")
        if len(parts_ours) != len(parts_theirs):
            return Agreement.DIFFERENT
        pairs = [(_number(p), _number(q)) for p, q in zip(parts_ours, parts_theirs)]
        ok = all(p is not None and q is not None and (abs(p - q) <= RELATIVE_TOLERANCE * max(abs(p), abs(q)) + 1e-3
                                                      or (math.isnan(p) and math.isnan(q))) for p, q in pairs)
        return Agreement.WITHIN_TOLERANCE if ok else Agreement.DIFFERENT
    a, b = _number(ours), _number(theirs)
    # "NaN" (not computed) and "nan" (computed, NaN data) are different tokens, though both parse.
    if a is None or b is None or (ours == "NaN") != (theirs == "NaN"):
        return Agreement.DIFFERENT
    return Agreement.WITHIN_TOLERANCE if numbers_agree(a, b) else Agreement.DIFFERENT


def diff_csvs(ours: Path, theirs: Path) -> CsvDiff:
    header_ours, rows_ours = _read(ours)
    header_theirs, rows_theirs = _read(theirs)
    result = CsvDiff(header_ours, header_theirs, len(rows_ours), len(rows_theirs))
    keyed_ours, keyed_theirs = _keyed(rows_ours), _keyed(rows_theirs)
    theirs_by_key = dict(keyed_theirs)
    ours_keys = {key for key, _ in keyed_ours}
    result.only_ours = [(key, row) for key, row in keyed_ours if key not in theirs_by_key]
    result.only_theirs = [(key, row) for key, row in keyed_theirs if key not in ours_keys]
    common_ours = [key for key, _ in keyed_ours if key in theirs_by_key]
    common_theirs = [key for key, _ in keyed_theirs if key in ours_keys]
    result.order_differs = common_ours != common_theirs
    columns = [name for name in column_names(header_ours) if name in set(column_names(header_theirs))]
    for key, row in keyed_ours:
        other = theirs_by_key.get(key)
        if other is None:
            continue
        result.matched_rows += 1
        for column in columns:
            a, b = row.get(column, ""), other.get(column, "")
            if column.split("#")[0] in METRICS:
                agreement = metric_agreement(a, b)
            else:
                agreement = Agreement.IDENTICAL if a == b else Agreement.DIFFERENT
            result.cells[agreement] += 1
            if agreement is not Agreement.IDENTICAL:
                result.differences.append(CellDifference(key, column, a, b, agreement, row, other))
    return result

"""The result CSV of a statistics comparison (its columns are documented in
docs/scenario-statistics.md), written through a temporary name.

Statistics are printed with 8 significant digits (the device prints 6: every digit it wrote
survives), differences likewise; an empty cell is a value that does not exist (no partner, or a
pair that could not be compared).
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import List, Optional, Sequence

from opdiff.dumps.statistics import TensorStatistics
from opdiff.report.csv_writer import safe_cell
from opdiff.report.statistics_rows import StatisticsRow
from opdiff.report.statistics_verdict import StatisticsVerdict

_SIDE = ("DataType", "Format", "Shape", "Count", "Max", "Min", "Mean", "NaN", "NegInf", "PosInf")
COLUMNS: List[str] = (
    ["Index", "OpType", "NPUDump", "GroundTruth", "TensorIndex"]
    + [f"My{name}" for name in _SIDE] + [f"Golden{name}" for name in _SIDE]
    + ["PaddingZeros", "MaxAbsDiff", "MinAbsDiff", "MeanAbsDiff", "MaxRelDiff", "MinRelDiff", "MeanRelDiff",
       "MaxNormDiff", "MinNormDiff", "MeanNormDiff", "NanInfCountDiff", "Result", "CompareFailReason"]
)


def number(value: float) -> str:
    return f"{value:.8g}"


def _side(stats: Optional[TensorStatistics]) -> List[str]:
    if stats is None:
        return [""] * len(_SIDE)
    shape = "[" + ",".join(map(str, stats.shape)) + "]"
    # Type and format names come from the files: text a spreadsheet must not run as a formula.
    return [safe_cell(stats.data_type), safe_cell(stats.format), shape, str(stats.count), number(stats.max), number(stats.min),
            number(stats.mean), str(stats.nan), str(stats.neg_inf), str(stats.pos_inf)]


def result_of(row: StatisticsRow, verdict: StatisticsVerdict) -> str:
    """``pass``, ``fail`` or ``not compared``."""
    if not row.compared:
        return "not compared"
    return "fail" if verdict.fails(row) else "pass"


def statistics_cells(row: StatisticsRow, verdict: StatisticsVerdict) -> List[str]:
    """The row's cells in COLUMNS order."""
    cells = [str(row.index), safe_cell(row.op_type), safe_cell(row.npu_dump), safe_cell(row.ground_truth), safe_cell(row.tensor_index)]
    cells += _side(row.my) + _side(row.golden)
    d = row.differences
    if d is None:
        cells += [""] * 11
    else:
        cells += [str(row.padding)] + [number(v) for v in (d.max_abs, d.min_abs, d.mean_abs, d.max_rel, d.min_rel, d.mean_rel,
                                                          d.max_norm, d.min_norm, d.mean_norm)] + [str(d.special)]
    cells += [result_of(row, verdict), safe_cell(" ".join(row.reasons))]
    return cells


def write_statistics_csv(rows: Sequence[StatisticsRow], path: Path, verdict: StatisticsVerdict = StatisticsVerdict()) -> Path:
    """Write every row to `path` (through ``path.partial``, renamed when whole)."""
    partial = path.with_name(path.name + ".partial")
    try:
        with open(partial, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(COLUMNS)
            writer.writerows(statistics_cells(row, verdict) for row in rows)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return path


__all__ = ["COLUMNS", "result_of", "statistics_cells", "write_statistics_csv"]

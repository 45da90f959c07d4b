"""The result CSV of a statistics comparison (its columns are documented in
docs/scenario-statistics.md), written through a temporary name.

Statistics are printed with 8 significant digits (the device prints 6: every digit it wrote
survives), differences likewise; an empty cell is a value that does not exist (no partner, or a
pair that could not be compared).
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from opdiff.fileio.atomic import RESULT_MODE, replacing
from opdiff.numerics.tensor_statistics import TensorStatistics
from opdiff.report.tensor.csv_writer import csv_cell, safe_cell
from opdiff.results.statistics_rows import StatisticsRow
from opdiff.results.statistics_verdict import StatisticsVerdict

_SIDE = ("DataType", "Format", "Shape", "Count", "Max", "Min", "Mean", "NaN", "NegInf", "PosInf")
COLUMNS: List[str] = (
    ["Index", "OpType", "NPUDump", "GroundTruth", "TensorIndex"]
    + [f"My{name}" for name in _SIDE] + [f"Golden{name}" for name in _SIDE]
    + ["PaddingZeros", "MaxAbsDiff", "MinAbsDiff", "MeanAbsDiff", "MaxRelDiff", "MinRelDiff", "MeanRelDiff",
       "MaxNormDiff", "MinNormDiff", "MeanNormDiff", "NanInfCountDiff", "Result", "CompareFailReason"]
)


def number(value: float) -> str:
    return f"{value:.8g}"


def quoted(text: str) -> str:
    """A CSV cell as the tensor CSV writes its cells (csv_writer.csv_cell: quoted only when it
    holds a comma, quote or line end), made safe for spreadsheets (csv_writer.safe_cell)."""
    return csv_cell(safe_cell(text))


_NO_SIDE = "," * (len(_SIDE) - 1)
_NO_DIFFERENCES = "," * 10


class _Cells:
    """Cell texts of one write: names, types and shapes repeat across rows, so each is made once."""

    def __init__(self) -> None:
        self._texts: Dict[str, str] = {}
        self._shapes: Dict[Tuple[int, ...], str] = {}

    def text(self, value: str) -> str:
        cell = self._texts.get(value)
        if cell is None:
            cell = self._texts[value] = quoted(value)
        return cell

    def shape(self, dims: Tuple[int, ...]) -> str:
        cell = self._shapes.get(dims)
        if cell is None:
            cell = self._shapes[dims] = quoted("[" + ",".join(map(str, dims)) + "]")
        return cell

    def side(self, stats: Optional[TensorStatistics]) -> str:
        if stats is None:
            return _NO_SIDE
        # Type and format names come from the files: text, quoted and made safe like every text cell.
        return (f"{self.text(stats.data_type)},{self.text(stats.format)},{self.shape(stats.shape)},{stats.count},"
                f"{stats.max:.8g},{stats.min:.8g},{stats.mean:.8g},{stats.nan},{stats.neg_inf},{stats.pos_inf}")


def result_of(row: StatisticsRow, verdict: StatisticsVerdict) -> str:
    """``pass``, ``fail`` or ``not compared``."""
    if not row.compared:
        return "not compared"
    return "fail" if verdict.fails(row) else "pass"


def statistics_line(row: StatisticsRow, verdict: StatisticsVerdict, cells: Optional[_Cells] = None) -> str:
    """The row as one CSV line in COLUMNS order (without the line end). Written out rather than
    through csv.writer: a big run writes 200,000 rows, and only the text cells need quoting."""
    cells = cells or _Cells()
    d = row.differences
    differences = _NO_DIFFERENCES if d is None else (
        f"{row.padding},{d.max_abs:.8g},{d.min_abs:.8g},{d.mean_abs:.8g},{d.max_rel:.8g},{d.min_rel:.8g},{d.mean_rel:.8g},"
        f"{d.max_norm:.8g},{d.min_norm:.8g},{d.mean_norm:.8g},{d.special}")
    reasons = quoted(" ".join(row.reasons)) if row.reasons else ""
    return (f"{row.index},{cells.text(row.op_type)},{quoted(row.npu_dump)},{cells.text(row.ground_truth)},"
            f"{quoted(row.tensor_index)},{cells.side(row.my)},{cells.side(row.golden)},{differences},"
            f"{result_of(row, verdict)},{reasons}")


def write_statistics_csv(rows: Sequence[StatisticsRow], path: Path, verdict: StatisticsVerdict = StatisticsVerdict()) -> Path:
    """Write every row to `path` (through a temporary name, renamed when whole)."""
    with replacing(path, mode=RESULT_MODE) as temporary:
        with open(temporary, "w", encoding="utf-8", newline="") as handle:
            handle.write(",".join(COLUMNS) + "\n")
            cells = _Cells()
            handle.writelines(statistics_line(row, verdict, cells) + "\n" for row in rows)
    return Path(path)


__all__ = ["COLUMNS", "quoted", "result_of", "statistics_line", "write_statistics_csv"]

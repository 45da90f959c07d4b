"""The reference tool's network result CSV (docs/reference/reference-tool.md §6.1), written incrementally
through a temporary file that becomes the result only when the run completes."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from types import TracebackType
from typing import IO, List, Optional, Type

from opdiff.fileio.atomic import RESULT_MODE, incomplete_name, place_without_clobbering, temporary_beside
from opdiff.numerics.schema import ALGORITHMS
from opdiff.report.tensor.reference_format import NOT_COMPUTED, format_metrics
from opdiff.results.columns import CsvColumns
from opdiff.results.rows import CompareRow

_FORMULA_STARTS = ("=", "+", "-", "%", "@", "＝", "＋", "－", "％", "＠")
_FORMULA_FIRST = frozenset(_FORMULA_STARTS)


def _text(value: Optional[str]) -> str:
    return NOT_COMPUTED if value is None else value


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def safe_cell(cell: str) -> str:
    """Neutralise text a spreadsheet would run as a formula (the reference aborts the write instead)."""
    if cell[:1] in _FORMULA_FIRST and not _is_number(cell):  # cheap test first: most cells pass it
        return "'" + cell
    return cell


def csv_cell(text: str) -> str:
    """A cell as the csv module's minimal quoting writes it: in double quotes, its quotes doubled,
    when it holds a comma, a quote or a line end. A carriage return counts as one, which csv.writer
    leaves bare in lines ending in "\\n" (a reader would end the line there).

    >>> csv_cell("conv1"), csv_cell("a,b"), len(csv_cell('1"2'))
    ('conv1', '"a,b"', 6)
    """
    if "," in text or '"' in text or "\n" in text or "\r" in text:
        return '"' + text.replace('"', '""') + '"'
    return text


def _leading_cells(row: CompareRow, columns: CsvColumns) -> List[str]:
    """The cells before the metrics. Text that comes from files (names, types, addresses) is
    neutralised; numbers, the shape and YES/NO are nothing a spreadsheet would run."""
    cells = [str(row.index)]
    if columns.op_sequence:
        cells.append(_text(None if row.op_sequence is None else str(row.op_sequence)))
    cells += [safe_cell(row.op_type), safe_cell(row.npu_dump), safe_cell(_text(row.my_dtype))]
    if columns.my_address:
        cells.append(safe_cell(_text(row.my_address)))
    cells += [safe_cell(row.ground_truth), safe_cell(_text(row.golden_dtype))]
    if columns.golden_address:
        cells.append(safe_cell(_text(row.golden_address)))
    cells.append(safe_cell(row.tensor_index))
    shape = row.reference_shape if row.reference_shape is not None else row.shape
    cells.append(_text(None if shape is None else "[" + ",".join(map(str, shape)) + "]"))
    if columns.overflow:
        cells.append(_text(None if row.overflow is None else ("YES" if row.overflow else "NO")))
    return cells


def format_row(row: CompareRow, columns: CsvColumns) -> List[str]:
    """The row's cells, in the header's order, formatted as the reference prints them (metric
    cells are numbers, "NaN" or "(m;s),(m;s)": nothing a spreadsheet would run)."""
    cells = _leading_cells(row, columns)
    if row.metrics is None:
        cells += [NOT_COMPUTED] * len(columns.algorithms)
    elif not columns.custom:
        cells += format_metrics(columns.algorithms, row.metrics)
    else:
        cells += _cells_with_custom(row, columns)
    cells.append(safe_cell(",".join(row.reasons)))
    return cells


def csv_line(row: CompareRow, columns: CsvColumns) -> str:
    """The row as one line of the CSV (with its line end): format_row's cells through csv_cell. A
    row the core compared under the ten default columns brings its metric text along
    (``CompareRow.reference_text``), which goes in as it is."""
    if row.reference_text and row.metrics is not None and not columns.custom and tuple(columns.algorithms) == ALGORITHMS:
        leading = ",".join(map(csv_cell, _leading_cells(row, columns)))
        return f"{leading},{row.reference_text},{csv_cell(safe_cell(','.join(row.reasons)))}\n"
    return ",".join(map(csv_cell, format_row(row, columns))) + "\n"


def _cells_with_custom(row: CompareRow, columns: CsvColumns) -> List[str]:
    """The metric cells when plug-in columns are among them: a plug-in's text as it gave it (the
    reference writes it so), neutralised like any text cell; NaN where it did not run."""
    assert row.metrics is not None
    builtin = iter(format_metrics([name for name in columns.algorithms if name not in columns.custom], row.metrics))
    return [safe_cell(_text(row.custom_value(name))) if name in columns.custom else next(builtin) for name in columns.algorithms]


class ReferenceCsvWriter:
    """Writes rows as they come to a temporary ``.partial`` file; ``close()`` gives it its name.

    Leaving the ``with`` block through an exception (Ctrl-C included) keeps what was written as
    ``{stem}.incomplete.csv``, so a stopped run still leaves a usable, clearly marked report. A name
    already taken (another run in the same folder and second) gets a ``_1``, ``_2``... suffix.

    >>> import tempfile, pathlib
    >>> from opdiff.results.rows import TensorId
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "result.csv"
    >>> with ReferenceCsvWriter(out, CsvColumns(algorithms=["CosineSimilarity"])) as writer:
    ...     writer.write(CompareRow(0, "Data", "x", "x", TensorId("x", "output", 0), reasons=("no dump",)))
    >>> out.read_text().splitlines()[1]
    '0,Data,x,NaN,NaN,x,NaN,NaN,x:output:0,NaN,NaN,no dump'
    """

    def __init__(self, path: Path, columns: CsvColumns) -> None:
        self.path = Path(path)
        self.columns = columns
        # Unique per writer, so concurrent runs into one folder never share a temporary file.
        self.partial = temporary_beside(self.path)
        # held open across write() calls, closed by close/abandon/discard (or __exit__)
        self._handle: Optional[IO[str]] = open(self.partial, "x", newline="", encoding="utf-8")  # noqa: SIM115
        os.chmod(self.partial, RESULT_MODE)
        self._handle.write(",".join(map(csv_cell, columns.header())) + "\n")
        self.rows_written = 0

    def write(self, row: CompareRow) -> None:
        assert self._handle is not None, "writer is closed"
        self._handle.write(csv_line(row, self.columns))
        self.rows_written += 1

    def close(self) -> Path:
        """Finish the file: flush, fsync and give it its name; returns the name it got."""
        self._finish()
        self.path = place_without_clobbering(self.partial, self.path)
        return self.path

    def abandon(self) -> Path:
        """Keep what was written under a name that says the run did not complete."""
        self._finish()
        return place_without_clobbering(self.partial, incomplete_name(self.path))

    def discard(self) -> None:
        """Drop the temporary file after a failure (a full disk, say): a result that is not whole is
        not kept under any name."""
        handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(OSError):  # flushing to a full disk fails; the descriptor is closed anyway
                handle.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.partial)

    def _finish(self) -> None:
        if self._handle is not None:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()
            self._handle = None

    def __enter__(self) -> ReferenceCsvWriter:
        return self

    def __exit__(
        self, kind: Optional[Type[BaseException]], error: Optional[BaseException], trace: Optional[TracebackType]
    ) -> None:
        if kind is None:
            self.close()
        else:
            self.abandon()

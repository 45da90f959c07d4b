"""The one loop every comparison runs through, whatever its family (tensor or statistics rows):
rows from the family's engine into the report and its result file as they come, a progress bar,
Ctrl-C, and the file's last name. The family supplies its rows and its file; the rest is here."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable, List, Optional, Protocol, TypeVar

if TYPE_CHECKING:  # rich's progress module loads only when a terminal asks for a bar
    from opdiff.engine.progress_bar import ProgressBar

Row = TypeVar("Row")
RowIn = TypeVar("RowIn", contravariant=True)


class ResultFile(Protocol[RowIn]):
    """A result file written as rows come: whole under its name, kept as ``.incomplete`` after
    Ctrl-C, or removed after an error (see fileio.atomic)."""

    def write(self, row: RowIn) -> None: ...

    def close(self) -> Path: ...

    def abandon(self) -> Path: ...

    def discard(self) -> None: ...


class DrivenReport(Protocol[Row]):
    """What the loop fills: the rows, whether they are all there, and where the file went."""

    rows: List[Row]
    complete: bool
    csv_path: Optional[Path]


def drive(report: DrivenReport[Row], rows: Iterable[Row], file: Optional[ResultFile[Row]] = None,
          bar: Optional[ProgressBar] = None) -> None:
    """Append `rows` to `report` and write them to `file` as they come. Ctrl-C stops the run with
    ``report.complete = False`` and keeps the file as ``.incomplete``; any other error removes the
    file and propagates (outputs are whole or absent). `bar` is advanced by the engine that makes
    `rows`; here it is started and stopped."""
    failed = True
    try:
        if bar is not None:
            bar.start()
        for row in rows:
            report.rows.append(row)
            if file is not None:
                file.write(row)
        failed = False
    except KeyboardInterrupt:
        report.complete = False
        failed = False
    finally:
        if bar is not None:
            bar.stop()
        if file is not None:
            _finish(file, report, failed)


def _finish(file: ResultFile[Row], report: DrivenReport[Row], failed: bool) -> None:
    """Name the file (``.incomplete`` after Ctrl-C); after an error, or when naming it fails (a full
    disk, a Ctrl-C mid-flush), remove it."""
    if failed:
        file.discard()
        return
    try:
        report.csv_path = file.close() if report.complete else file.abandon()
    except BaseException:
        file.discard()
        raise


__all__ = ["DrivenReport", "ResultFile", "drive"]

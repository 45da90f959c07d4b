"""The progress bar of a comparison, over ops (only when asked for: the CLI turns it on for terminals)."""

from __future__ import annotations

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


class ProgressBar:
    """A rich progress bar over ops (only when asked for: the CLI turns it on for terminals)."""

    def __init__(self, total: int) -> None:
        self._progress = Progress(
            TextColumn("comparing"), BarColumn(), MofNCompleteColumn(), TextColumn("ops"), TimeElapsedColumn(),
            TextColumn("ETA"), TimeRemainingColumn(), transient=True,
        )
        self._task = self._progress.add_task("ops", total=total)

    def start(self) -> None:
        self._progress.start()

    def advance(self) -> None:
        self._progress.advance(self._task)

    def stop(self) -> None:
        self._progress.stop()

"""`opdiff info` on a statistics CSV (its tensors' statistics, and the lines it cannot use) and on a
dump folder (what kind of side it is: full dumps, statistics dumps or golden .npy, and which files
discovery skips, with the reason)."""

from __future__ import annotations

import os

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from opdiff.commands.errors import print_error, print_note
from opdiff.commands.exit_codes import ExitCode


def print_side_or_statistics(path: str, console: Console) -> int:
    """Print one statistics CSV or one dump folder; the exit status (0, or 11 for a bad file)."""
    if os.path.isdir(path):
        return _print_side(path, console)
    return _print_statistics(path, console)


def _print_statistics(path: str, console: Console) -> int:
    from opdiff.dumps.statistics import StatisticsFormatError, read_statistics

    try:
        stats = read_statistics(path)
    except StatisticsFormatError as error:
        print_error(f"{error}")
        return ExitCode.INVALID_DUMP_DATA
    table = Table(title=f"{escape(os.path.basename(path))}  [dim](statistics dump)[/]", title_justify="left",
                  box=box.SIMPLE_HEAD, pad_edge=False)
    values = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    # Two tables, as for a full dump: identifiers never shrink on a narrow terminal.
    for column in ("io", "index", "dtype", "format", "stored shape", "count", "bytes"):
        table.add_column(column, justify="right" if column in ("index", "count", "bytes") else "left", no_wrap=True)
    for column in ("io", "index", "min", "max", "mean", "NaN", "-Inf", "+Inf"):
        values.add_column(column, justify="left" if column == "io" else "right", no_wrap=True)
    for t in stats.tensors:
        table.add_row(t.role, str(t.index), t.data_type, t.format, "x".join(map(str, t.shape)) or "-", str(t.count),
                      f"{t.data_size:,}")
        values.add_row(t.role, str(t.index), f"{t.min:.6g}", f"{t.max:.6g}", f"{t.mean:.6g}", str(t.nan), str(t.neg_inf),
                       str(t.pos_inf))
    console.print(table)
    console.print(values)
    for (role, index), reason in sorted(stats.problems.items()):
        print_note(reason, console, label=f"  {role} {index}: ")
    for note in stats.notes:
        print_note(note, console, label="  note: ")
    return ExitCode.INVALID_DUMP_DATA if stats.problems or stats.notes else 0


def _print_side(path: str, console: Console) -> int:
    from opdiff.dumps.discovery import find_leaves, index_folder

    leaves = find_leaves(path)
    if not leaves:
        console.print(f"{escape(path)}: no dump files found", soft_wrap=True)
        return 0
    for leaf in leaves:
        try:
            index = index_folder(leaf.folder)
        except ValueError as error:
            print_error(f"{error}")
            return ExitCode.INVALID_DUMP_DATA
        kind = index.kind.value if index.kind else "nothing to compare"
        statistics = index.statistics_count
        console.print(f"[bold]{escape(str(leaf.folder))}[/]: {kind}, {len(index.files)} op(s), {index.count - statistics} "
                      f"{'golden file(s)' if kind == 'golden .npy' else 'full dump(s)'}, {statistics} statistics file(s), "
                      f"{len(index.skipped)} skipped", highlight=False, soft_wrap=True)
        for skipped, reason in index.skipped:
            print_note(f"{skipped.name}: {reason}", console, label="  skipped: ", style="dim")
    return 0

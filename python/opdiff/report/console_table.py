"""The one way opdiff lays a table out on the terminal, at whatever width it has: headers whole on
one line, names wrapped only between their parts (report/console_name.py), numbers whole, and a
column whose cells are all empty left out.

rich shrinks a table that does not fit by cutting any column, header and numbers included. A
ConsoleTable first works out whether its columns fit at their narrowest (a header's length, a
name's longest part, a number's length): as a boxed table, else as a compact one (no box, no edge),
else, on a terminal too narrow for either, one record per row with a header on each line (as
``psql -x`` does)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import List, Optional, Sequence, Tuple

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, JustifyMethod, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from opdiff.report.console_name import NameCell


class Wrap(Enum):
    """Where a column's cells may break across lines."""

    WHOLE = "whole"  # never: numbers, counts, indices
    WORDS = "words"  # at spaces: prose, "my / golden" pairs, coordinates
    NAME = "name"  # after "/" and ":" (and at spaces): tensor, op and run names, and text holding paths; taken literally


@dataclass(frozen=True)
class Column:
    """One column: its header, how its cells line up and where they may break."""

    header: str
    justify: JustifyMethod = "left"
    wrap: Wrap = Wrap.WHOLE


@dataclass(frozen=True)
class _Style:
    """A table's frame, and how many cells it takes beyond the columns' own widths."""

    box: box.Box
    show_edge: bool
    padding: Tuple[int, int]  # the blank cells left and right of each column's cells
    pad_edge: bool  # whether the first column's left padding and the last one's right padding stay

    def frame_width(self, columns: int) -> int:
        padding = columns * sum(self.padding) - (0 if self.pad_edge else sum(self.padding))
        return padding + (columns - 1) + (2 if self.show_edge else 0)  # the rules between columns, the edges


def _is_empty(cell: RenderableType) -> bool:
    if isinstance(cell, str):
        return not Text.from_markup(cell).plain.strip()
    if isinstance(cell, NameCell):
        return not cell.name.strip()
    return isinstance(cell, Text) and not cell.plain.strip()


def _as_cell(cell: RenderableType, column: Column) -> RenderableType:
    """A name column's str or Text as a NameCell; any other cell as it is (a str is rich markup)."""
    if column.wrap is Wrap.NAME and isinstance(cell, (str, Text)):
        return NameCell(cell.plain, cell.style) if isinstance(cell, Text) else NameCell(cell)
    return cell


def _range(console: Console, options: ConsoleOptions, column: Column, cells: Sequence[RenderableType]) -> Measurement:
    """The narrowest and the widest a column can be: never narrower than its header, nor than a
    whole cell of a WHOLE column (another renderable, a bar, says its own narrowest)."""
    header = cell_len(column.header)
    least, most = header, header
    for cell in cells:
        measured = Measurement.get(console, options, cell)
        whole = column.wrap is Wrap.WHOLE and isinstance(cell, (str, Text))
        least = max(least, measured.maximum if whole else measured.minimum)
        most = max(most, measured.maximum)
    return Measurement(least, most)


def share_width(space: int, ranges: Sequence[Measurement]) -> Optional[List[int]]:
    """Column widths within `space` cells: each column its narrowest, and what is left shared evenly
    among the columns that could be wider, none beyond its widest (so a name that is short of a line
    by a few cells gets them before a long reason takes the rest); None when even the narrowest do
    not fit.

    >>> share_width(20, [Measurement(5, 5), Measurement(4, 30)])
    [5, 15]
    >>> share_width(30, [Measurement(8, 12), Measurement(4, 30)])
    [12, 18]
    >>> share_width(8, [Measurement(5, 5), Measurement(4, 30)]) is None
    True
    """
    widths = [r.minimum for r in ranges]
    spare = space - sum(widths)
    if spare < 0:
        return None
    short = [k for k, r in enumerate(ranges) if r.maximum > r.minimum]
    while spare and short:
        share = max(1, spare // len(short))
        for k in list(short):
            grant = min(share, ranges[k].maximum - widths[k], spare)
            widths[k] += grant
            spare -= grant
            if widths[k] == ranges[k].maximum:
                short.remove(k)
    return widths


@dataclass
class ConsoleTable:
    """A table for the terminal that keeps headers, numbers and name parts whole at any width.

    >>> from rich.console import Console
    >>> table = ConsoleTable("worst", [Column("Index", "right"), Column("TensorIndex", wrap=Wrap.NAME), Column("Why")])
    >>> table.add_row("7", "block2/relu1_fused:output:0", "")
    >>> Console(width=34, color_system=None).print(table)
    worst
    ┏━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┓
    ┃ Index ┃ TensorIndex            ┃
    ┡━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━┩
    │     7 │ block2/relu1_fused:    │
    │       │ output:0               │
    └───────┴────────────────────────┘
    """

    title: str
    columns: Sequence[Column]
    show_edge: bool = True
    rows: List[Sequence[RenderableType]] = field(default_factory=list)

    def add_row(self, *cells: RenderableType) -> None:
        self.rows.append(cells)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        shown = [k for k, _ in enumerate(self.columns) if not self.rows or not all(_is_empty(row[k]) for row in self.rows)]
        columns = [self.columns[k] for k in shown]
        cells = [[_as_cell(row[k], self.columns[k]) for k in shown] for row in self.rows]
        ranges = [_range(console, options, column, [row[k] for row in cells]) for k, column in enumerate(columns)]
        # Boxed as rich draws tables; else compact: a rule under the headers, two blanks between columns.
        for style in (_Style(box.HEAVY_HEAD, self.show_edge, (1, 1), True), _Style(box.SIMPLE_HEAD, False, (0, 1), False)):
            widths = share_width(options.max_width - style.frame_width(len(columns)), ranges)
            if widths is not None:
                yield self._table(style, columns, cells, widths)
                return
        yield self._records(columns, cells)

    def _table(self, style: _Style, columns: Sequence[Column], cells: Sequence[Sequence[RenderableType]],
               widths: Sequence[int]) -> Table:
        table = Table(title=self.title, title_justify="left", box=style.box, show_edge=style.show_edge,
                      padding=(0, style.padding[1], 0, style.padding[0]), pad_edge=style.pad_edge)
        for column, width in zip(columns, widths):
            table.add_column(column.header, justify=column.justify, width=width, no_wrap=column.wrap is Wrap.WHOLE,
                             overflow="fold")
        for row in cells:
            table.add_row(*row)
        return table

    def _records(self, columns: Sequence[Column], cells: Sequence[Sequence[RenderableType]]) -> Table:
        """One record per row, a header and its cell on each line (the cells left empty left out)."""
        table = Table(title=self.title, title_justify="left", show_header=False, expand=True)
        table.add_column(no_wrap=True, style="table.header")
        table.add_column(overflow="fold", ratio=1)  # the cells take what the headers leave
        for row in cells:
            filled = [(column, cell) for column, cell in zip(columns, row) if not _is_empty(cell)]
            for k, (column, cell) in enumerate(filled):
                table.add_row(column.header, cell, end_section=k == len(filled) - 1)
        return table


__all__ = ["Column", "ConsoleTable", "Wrap", "share_width"]

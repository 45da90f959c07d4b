"""A tensor, op or run name in a console table cell, wrapped only between its parts: after a "/" or
a ":" (and at spaces), so that ``block2/relu1_fused:output:0`` breaks as ``block2/`` ``relu1_fused:``
``output:0`` and never inside ``relu1_fused``.

rich wraps text at whitespace only (a zero-width space is no break opportunity to it), so the cell
breaks the name itself, at the width the table gives it, and tells the table the narrowest width it
can take: that of its longest part."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.style import StyleType
from rich.text import Text

# After each run of separators, before the next part (a zero-width split: the separator stays on the
# left), except before the trailing index of "output:0", which stays with its role.
_PART_START = re.compile(r"(?<=[/:\s])(?=[^/:\s])(?!\d+$)")


def name_parts(name: str) -> List[str]:
    """`name` cut after every "/", ":" and space but the one before a trailing index; the parts
    joined give the name back.

    >>> name_parts("block2/relu1_fused:output:0")
    ['block2/', 'relu1_fused:', 'output:0']
    """
    return _PART_START.split(name)


def _fold(text: str, width: int) -> List[str]:
    """`text` cut every `width` cells: the last resort, for one part wider than the cell."""
    lines = [""]
    for char in text:
        if lines[-1] and cell_len(lines[-1] + char) > width:
            lines.append("")
        lines[-1] += char
    return lines


def name_lines(name: str, width: int) -> List[str]:
    """`name` in lines of at most `width` cells, each holding as many whole parts as fit.

    >>> name_lines("block2/relu1_fused:output:0", 14)
    ['block2/', 'relu1_fused:', 'output:0']
    """
    lines: List[str] = []
    line = ""
    for part in name_parts(name):
        if line and cell_len((line + part).rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        line += part
        if cell_len(line.rstrip()) > width:
            *full, line = _fold(line.rstrip(), width)
            lines += full
    return lines + [line.rstrip()]


@dataclass(frozen=True)
class NameCell:
    """A name as a table cell (taken literally, not as rich markup), wrapped between its parts.

    >>> from rich.console import Console
    >>> from rich.table import Table
    >>> table = Table("TensorIndex", width=18)
    >>> table.add_row(NameCell("block2/relu1_fused:output:0"))
    >>> Console(width=40, color_system=None).print(table)
    ┏━━━━━━━━━━━━━━━━┓
    ┃ TensorIndex    ┃
    ┡━━━━━━━━━━━━━━━━┩
    │ block2/        │
    │ relu1_fused:   │
    │ output:0       │
    └────────────────┘
    """

    name: str
    style: StyleType = ""

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        longest_part = max(cell_len(part.rstrip()) for part in name_parts(self.name))
        return Measurement(longest_part, cell_len(self.name))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text("\n".join(name_lines(self.name, options.max_width)), style=self.style)

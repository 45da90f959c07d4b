"""The console report's skeleton, the same for every result family: what was compared, the summary,
an interrupted run's warning, the worst tensors, the first failure, what was not compared, the
notes and where the result went. A family fills in its sections (report/tensor/console.py,
report/statistics/console.py); the order and the shared lines live here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence

from rich.console import RenderableType
from rich.markup import escape
from rich.text import Text

from opdiff.results.protocol import Result


@dataclass(frozen=True)
class ConsoleSections:
    """What a family writes into the skeleton."""

    title: str  # after "opdiff compare": the scenario, and what kind of dumps
    summary: Sequence[RenderableType]  # the counts and the verdict's limits
    worst: Optional[RenderableType]  # the table of the worst tensors, if any
    first_failure: str  # the line on the first failing tensor, or that every tensor passes
    reasons_separator: str  # how a not-compared row's reasons are joined
    notes: Sequence[RenderableType]  # the notes, as the family lists them


def console_skeleton(result: Result, rows: Sequence[Any], sections: ConsoleSections, csv_path: Optional[str]) -> List[RenderableType]:
    """The console report of `result` (whose rows are `rows`) as rich renderables, in order."""
    out: List[RenderableType] = [
        f"[bold]opdiff compare[/] ({sections.title})",
        f"  my:     {escape(str(result.my_folder))}\n  golden: {escape(str(result.golden_folder))}",
        *sections.summary,
    ]
    if not result.complete:
        out.append("[bold yellow]interrupted: the report covers the ops compared before the stop[/]")
    if sections.worst is not None:
        out.append(sections.worst)
    out.append(sections.first_failure)
    for row in [row for row in rows if not row.compared][:5]:
        name = row.tensor_index if row.tensor_index != "NaN" else row.npu_dump
        out.append(Text.from_markup(f"  [dim]not compared:[/] {escape(name)}: {escape(sections.reasons_separator.join(row.reasons))}"))
    out += sections.notes
    if csv_path:
        out.append(f"result: {escape(csv_path)}")
    return out

"""The console report of a statistics comparison (rich): what was compared, how much passes, the
tensors whose statistics moved most and the first tensor in execution order that fails."""

from __future__ import annotations

from typing import List, Optional, Sequence

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.text import Text

from opdiff.report.console_skeleton import ConsoleSections, console_skeleton
from opdiff.report.console_table import Column, ConsoleTable, Wrap
from opdiff.report.number_text import significant
from opdiff.results.statistics_report import StatisticsReport
from opdiff.results.statistics_rows import StatisticsRow
from opdiff.results.statistics_verdict import StatisticsVerdict

_WORST_COLUMNS = (Column("Index", "right"), Column("TensorIndex", wrap=Wrap.NAME), Column("Max my/golden", wrap=Wrap.WORDS),
                  Column("Min my/golden", wrap=Wrap.WORDS), Column("Mean my/golden", wrap=Wrap.WORDS), Column("NormDiff", "right"))


def _worst_table(rows: Sequence[StatisticsRow]) -> ConsoleTable:
    table = ConsoleTable("tensors whose statistics moved most (difference / golden magnitude)", _WORST_COLUMNS)
    for row in rows:
        my, golden, d = row.my, row.golden, row.differences
        assert my is not None and golden is not None and d is not None
        pairs = [f"{significant(mine)} / {significant(theirs)}" for mine, theirs in
                 ((my.max, golden.max), (my.min, golden.min), (my.mean, golden.mean))]
        table.add_row(str(row.index), row.tensor_index, *pairs, significant(max(d.max_norm, d.min_norm, d.mean_norm)))
    return table


def first_failure_line(row: StatisticsRow, verdict: StatisticsVerdict) -> str:
    """The line naming the first failing tensor, with the limits it breaks."""
    assert row.my is not None and row.golden is not None and row.differences is not None
    broken = ", ".join(f"{t.metric} {significant(t.value_of(row.differences))} > {t.value:g}" for t in verdict.violations(row))
    return (f"[bold red]first failing tensor in execution order:[/] {escape(row.tensor_index)} (Index {row.index}, "
            f"{escape(row.op_type)}): max {significant(row.my.max)} vs {significant(row.golden.max)}, min {significant(row.my.min)} vs "
            f"{significant(row.golden.min)}, mean {significant(row.my.mean)} vs {significant(row.golden.mean)} ({escape(broken)})")


def statistics_renderables(report: StatisticsReport, verdict: StatisticsVerdict = StatisticsVerdict(),
                           csv_path: Optional[str] = None) -> List[RenderableType]:
    """The console report as rich renderables, in order."""
    summary = report.summary(verdict)
    worst = report.worst(10)
    first = report.first_failure(verdict)
    notes: List[RenderableType] = [Text.from_markup(f"  [dim]note:[/] {escape(note)}") for note in report.notes[:5]]
    if len(report.notes) > 5:
        notes.append(Text.from_markup(f"  [dim]note:[/] {len(report.notes) - 5} more note(s) in the JSON report"))
    sections = ConsoleSections(
        title=f"{report.scenario.value}, statistics dumps",
        summary=[f"  {summary['rows']} rows: {summary['compared']} tensors compared by their statistics, "
                 f"[green]{summary['passing']} pass[/], [red]{summary['failing']} fail[/] ({escape(verdict.describe(report.rows))}), "
                 f"{summary['not_compared']} not compared"],
        worst=_worst_table(worst) if worst else None,
        first_failure="[green]every compared tensor meets the thresholds[/]" if first is None else first_failure_line(first, verdict),
        reasons_separator=" ",
        notes=notes,
    )
    return console_skeleton(report, report.rows, sections, csv_path)


def print_statistics_report(report: StatisticsReport, console: Optional[Console] = None,
                            verdict: StatisticsVerdict = StatisticsVerdict(), csv_path: Optional[str] = None) -> None:
    console = console or Console()
    for renderable in statistics_renderables(report, verdict, csv_path):
        console.print(renderable)


__all__ = ["first_failure_line", "print_statistics_report", "statistics_renderables"]

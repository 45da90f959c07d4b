"""The console report of many runs (rich): how many runs pass, each failing run and where it first
breaks, the runs not compared with their reasons, and the tensors that fail in most runs."""

from __future__ import annotations

from typing import List, Optional

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.text import Text

from opdiff.report.console_table import Column, ConsoleTable, Wrap
from opdiff.report.number_text import fixed
from opdiff.results.runs_summary import RunsSummary, RunStatus

MOST_FAILING = 10
_FAILING_COLUMNS = (Column("run", wrap=Wrap.NAME), Column("failing", "right"), Column("compared", "right"),
                    Column("first failing op", wrap=Wrap.NAME), Column("tensor", wrap=Wrap.NAME))
_MOST_FAILING_COLUMNS = (Column("tensor", wrap=Wrap.NAME), Column("runs failing", "right"),
                         Column("first failure in", wrap=Wrap.NAME), Column("worst", "right"), Column("median", "right"),
                         Column("best", "right"))




def summary_renderables(summary: RunsSummary) -> List[RenderableType]:
    compared, failing = summary.compared, summary.failing
    out: List[RenderableType] = [
        "[bold]opdiff compare[/] (many runs)",
        Text(f"  my:     {summary.my}\n  golden: {summary.golden}"),
        f"  {len(summary.runs)} runs: {len(compared)} compared, [green]{len(compared) - len(failing)} pass[/], "
        f"[red]{len(failing)} fail[/], {len(summary.not_compared)} not compared (verdict: {summary.verdict})",
    ]
    if not summary.complete:
        out.append(Text.from_markup(f"[bold yellow]incomplete:[/] {escape(summary.stopped_by or 'stopped')}; "
                                    f"{len(summary.missing)} run(s) missing"))
    if summary.mapped:
        out.append(f"  {len(summary.mapped)} runs mapped (-map): each run's {{run}}_mapping_{{time}}.csv lists its pairs of files")
    if failing:
        table = ConsoleTable("failing runs and where each first breaks", _FAILING_COLUMNS)
        for run in failing:
            first = run.first_failure
            table.add_row(run.label, str(run.failed), str(run.compared), first.op if first else "", first.tensor if first else "")
        out.append(table)
    elif not summary.mapped:
        out.append("[green]every compared run meets the verdict[/]" if compared else "[yellow]no run was compared[/]")
    for run in summary.not_compared:
        kind = "missing" if run.status is RunStatus.MISSING else "not compared"
        out.append(Text.from_markup(f"  [dim]{kind}:[/] {escape(run.label)}: {escape(run.reason or '')}"))
    worst = sorted((t for t in summary.tensors if t.failing_runs), key=lambda t: -len(t.failing_runs))[:MOST_FAILING]
    if worst:
        metric = summary.metrics[0]
        table = ConsoleTable(f"tensors failing in most runs ({metric} worst / median / best)", _MOST_FAILING_COLUMNS)
        for tensor in worst:
            spread = tensor.spreads[0]
            table.add_row(tensor.tensor, f"{len(tensor.failing_runs)}/{len(tensor.cells)}", ", ".join(tensor.first_failure_in),
                          fixed(spread.worst), fixed(spread.median), fixed(spread.best))
        out.append(table)
    if summary.path is not None:
        out.append(Text(f"summary: {summary.path}"))
    return out


def print_summary(summary: RunsSummary, console: Optional[Console] = None) -> None:
    console = console or Console()
    for renderable in summary_renderables(summary):
        console.print(renderable)

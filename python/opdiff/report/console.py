"""The console report of a comparison (rich): what was compared, how much passes, the worst tensors
and the first tensor in execution order that fails."""

from __future__ import annotations

import math
from typing import List, Optional, Sequence

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from opdiff.comparison import DEFAULT_THRESHOLDS, Report, Threshold
from opdiff.report.rows import CompareRow


def _number(value: float) -> str:
    return "nan" if math.isnan(value) else f"{value:.6f}"


def _worst_table(rows: Sequence[CompareRow]) -> Table:
    table = Table(title="worst tensors (lowest cosine)", title_justify="left")
    for column in ("Index", "TensorIndex", "Cosine", "MaxAbsErr", "MaxRelErr", "Why"):
        table.add_column(column, justify="right" if column in ("Index", "Cosine", "MaxAbsErr", "MaxRelErr") else "left",
                         overflow="fold")
    for row in rows:
        m = row.metrics
        assert m is not None
        # Text, not str: a tensor name such as "a[1]" is data, not rich markup.
        table.add_row(str(row.index), Text(row.tensor_index), _number(m.cosine_similarity), _number(m.max_absolute_error),
                      _number(m.max_relative_error), Text(", ".join(row.reasons)))
    return table


def report_renderables(report: Report, thresholds: Sequence[Threshold] = DEFAULT_THRESHOLDS,
                       csv_path: Optional[str] = None) -> List[RenderableType]:
    """The console report as rich renderables, in order (what ``print_report`` and ``rich.print(report)`` show)."""
    summary = report.summary(thresholds)
    limits = ", ".join(f"{t.metric} {'>=' if t.metric == 'CosineSimilarity' else '<='} {t.value:g}" for t in thresholds)
    # Plain strings are highlighted by the console; Text (from_markup) is not, for names and paths.
    out: List[RenderableType] = [
        f"[bold]opdiff compare[/] ({report.scenario.value})",
        f"  my:     {escape(str(report.my_folder))}\n  golden: {escape(str(report.golden_folder))}",
        f"  {summary['rows']} rows: {summary['compared']} tensors compared, [green]{summary['passing']} pass[/], "
        f"[red]{summary['failing']} fail[/] ({limits}), {summary['not_compared']} without a partner",
    ]
    if not report.complete:
        out.append("[bold yellow]interrupted: the report covers the ops compared before the stop[/]")
    worst = [row for row in report.worst(10) if row.metrics is not None]
    if worst:
        out.append(_worst_table(worst))
    first = report.first_failure(thresholds)
    if first is None:
        out.append("[green]every compared tensor meets the thresholds[/]")
    else:
        m = first.metrics
        assert m is not None
        out.append(
            f"[bold red]first failing tensor in execution order:[/] {escape(first.tensor_index)} (Index {first.index}, "
            f"{escape(first.op_type)}): cosine {_number(m.cosine_similarity)}, max abs error "
            f"{_number(m.max_absolute_error)} at flat index {m.max_absolute_error_index}"
        )
    missing = [row for row in report.rows if not row.compared][:5]
    for row in missing:
        name = row.tensor_index if row.tensor_index != "NaN" else row.npu_dump
        out.append(Text.from_markup(f"  [dim]not compared:[/] {escape(name)}: {escape(', '.join(row.reasons))}"))
    # Files the comparison left out: the counts in full, the per-file notes (unreadable names) by number.
    counted = [note for note in report.notes if ": " not in note]
    per_file = len(report.notes) - len(counted)
    for note in counted:
        out.append(Text.from_markup(f"  [dim]note:[/] {escape(note)}"))
    if per_file:
        out.append(Text.from_markup(f"  [dim]note:[/] {per_file} file(s) skipped by name (neither dumps nor golden files); "
                                    "each is listed in the JSON report's notes"))
    if csv_path:
        out.append(f"result: {escape(csv_path)}")
    return out


def print_report(report: Report, console: Optional[Console] = None, thresholds: Sequence[Threshold] = DEFAULT_THRESHOLDS,
                 csv_path: Optional[str] = None) -> None:
    console = console or Console()
    for renderable in report_renderables(report, thresholds, csv_path):
        console.print(renderable)


def print_findings(findings, console: Optional[Console] = None) -> None:
    """The advisor's findings, most important first."""
    from opdiff.advisor import FindingKind

    console = console or Console()
    console.print("[bold]advisor[/]")
    for number, finding in enumerate(findings, start=1):
        colour = "green" if finding.kind is FindingKind.VERDICT and "matches" in finding.advice else "red"
        if finding.kind is FindingKind.VERDICT:
            colour = "yellow" if "deviate" in finding.advice else colour
        console.print(f"  {number}. [bold {colour}]{finding.kind.value}[/]: {finding.op} ({finding.tensor_index}, Index "
                      f"{finding.index})", highlight=False)
        console.print(f"     {finding.evidence}", highlight=False)
        if finding.chain:
            trend = " -> ".join(f"{tensor.rsplit(':', 2)[0]} {cos:.4f}" for tensor, cos in finding.chain)
            console.print(f"     cosine along the path: {trend}", highlight=False)
        console.print(f"     [italic]{finding.advice}[/]", highlight=False)

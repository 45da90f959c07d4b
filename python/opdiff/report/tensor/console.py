"""The console report of a comparison (rich): what was compared, how much passes, the worst tensors
and the first tensor in execution order that fails."""

from __future__ import annotations

from typing import List, Optional, Sequence

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.text import Text

from opdiff.report.console_skeleton import ConsoleSections, console_skeleton
from opdiff.report.console_table import Column, ConsoleTable, Wrap
from opdiff.report.number_text import fixed
from opdiff.results.findings import Finding, FindingKind
from opdiff.results.rows import CompareRow
from opdiff.results.tensor_report import Report
from opdiff.results.verdict import Verdict, VerdictLike

# Inherited-error findings printed in full; the others are counted (each is in the JSON report).
INHERITED_SHOWN = 3




_WORST_COLUMNS = (Column("Index", "right"), Column("TensorIndex", wrap=Wrap.NAME), Column("Cosine", "right"),
                  Column("NormRatioErr", "right"), Column("MaxAbsErr", "right"), Column("MaxRelErr", "right"),
                  Column("Why", wrap=Wrap.NAME))  # a reason names files: its paths break after a "/" too


def _worst_table(rows: Sequence[CompareRow]) -> ConsoleTable:
    table = ConsoleTable("worst tensors (failing first, then lowest cosine)", _WORST_COLUMNS)
    for row in rows:
        m = row.metrics
        assert m is not None
        # The name and the reason are data, not rich markup: name columns take their cells literally.
        table.add_row(str(row.index), row.tensor_index, fixed(m.cosine_similarity), fixed(m.norm_ratio_error),
                      fixed(m.max_absolute_error), fixed(m.max_relative_error), ", ".join(row.reasons))
    return table


def report_renderables(report: Report, verdict: VerdictLike = None, csv_path: Optional[str] = None) -> List[RenderableType]:
    """The console report as rich renderables, in order (what ``print_report`` and ``rich.print(report)`` show);
    pass and fail by `verdict` (default: the report's default verdict)."""
    judge: Verdict = report.verdict(verdict)
    summary = report.summary(judge)
    limits = judge.limits_text(report.rows)
    worst = [row for row in report.worst(10, judge) if row.metrics is not None]
    sections = ConsoleSections(
        title=report.scenario.value,
        # Plain strings are highlighted by the console; Text (from_markup) is not, for names and paths.
        summary=[f"  {summary['rows']} rows: {summary['compared']} tensors compared, [green]{summary['passing']} pass[/], "
                 f"[red]{summary['failing']} fail[/], {summary['not_compared']} without a partner",
                 Text(f"  verdict ({judge.name}): {limits}")],
        worst=_worst_table(worst) if worst else None,
        first_failure=_first_failure_line(report.first_failure(judge)),
        reasons_separator=", ",
        notes=_notes(report.notes),
    )
    return console_skeleton(report, report.rows, sections, csv_path)


def _first_failure_line(first: Optional[CompareRow]) -> str:
    if first is None:
        return "[green]every compared tensor meets the thresholds[/]"
    m = first.metrics
    assert m is not None
    return (f"[bold red]first failing tensor in execution order:[/] {escape(first.tensor_index)} (Index {first.index}, "
            f"{escape(first.op_type)}): cosine {fixed(m.cosine_similarity)}, NormRatioError "
            f"{fixed(m.norm_ratio_error)}, max abs error {fixed(m.max_absolute_error)} at flat index "
            f"{m.max_absolute_error_index}")


def _notes(notes: Sequence[str]) -> List[RenderableType]:
    """Files the comparison left out: the counts in full, the per-file notes (unreadable names) by number."""
    counted = [note for note in notes if ": " not in note]
    per_file = len(notes) - len(counted)
    out: List[RenderableType] = [Text.from_markup(f"  [dim]note:[/] {escape(note)}") for note in counted]
    if per_file:
        out.append(Text.from_markup(f"  [dim]note:[/] {per_file} file(s) skipped by name (neither dumps nor golden files); "
                                    "each is listed in the JSON report's notes"))
    return out


def print_report(report: Report, console: Optional[Console] = None, verdict: VerdictLike = None,
                 csv_path: Optional[str] = None) -> None:
    console = console or Console()
    for renderable in report_renderables(report, verdict, csv_path):
        console.print(renderable)


def print_local_failures(report: Report, console: Optional[Console] = None, limit: int = 20) -> None:
    """The ops whose own output fails locally (``--isolate``), in Index order, and how many ops
    were not isolated."""
    from opdiff.results.isolation import local_judge, local_verdict
    from opdiff.results.local_error import LocalVerdict

    console = console or Console()
    judge = local_judge(report)
    verdicts = [(row, local_verdict(row, judge)) for row in report.rows]
    failing = [row for row, verdict in verdicts if verdict is LocalVerdict.FAIL]
    not_isolated = [row for row, verdict in verdicts if verdict is LocalVerdict.NOT_ISOLATED]
    isolated = sum(1 for _, verdict in verdicts if verdict in (LocalVerdict.PASS, LocalVerdict.FAIL))
    console.print(Text(f"isolation: {isolated} outputs run alone on the device's inputs, {len(failing)} fail locally, "
                       f"{len(not_isolated)} not isolated"))
    for row in failing[:limit]:
        m = row.local.metrics if row.local is not None else None
        assert m is not None
        console.print(Text(f"  fails locally: {row.tensor_index} (Index {row.index}, {row.op_type}): local cosine "
                           f"{fixed(m.cosine_similarity)}, NormRatioError {fixed(m.norm_ratio_error)}"), style="red")
    if len(failing) > limit:
        console.print(Text(f"  ... {len(failing) - limit} more in the isolation CSV"))


def print_findings(findings: Sequence[Finding], console: Optional[Console] = None) -> None:
    """The advisor's findings, most important first."""
    console = console or Console()
    console.print("[bold]advisor[/]")
    inherited = 0
    for number, finding in enumerate(findings, start=1):
        if finding.kind is FindingKind.INHERITED:
            inherited += 1
            if inherited > INHERITED_SHOWN:  # every op downstream of a culprit inherits: the first few say it
                continue
        colour = "green" if finding.kind is FindingKind.VERDICT and "matches" in finding.advice else "red"
        if finding.kind is FindingKind.VERDICT:
            colour = "yellow" if "deviate" in finding.advice else colour
        console.print(f"  {number}. [bold {colour}]{finding.kind.value}[/]: {finding.op} ({finding.tensor_index}, Index "
                      f"{finding.index})", highlight=False)
        console.print(f"     {finding.evidence}", highlight=False)
        if finding.chain:
            trend = " -> ".join(f"{tensor.op_label} {cos:.4f}" for tensor, cos in finding.chain)
            console.print(f"     cosine along the path: {trend}", highlight=False)
        console.print(f"     [italic]{finding.advice}[/]", highlight=False)
    if inherited > INHERITED_SHOWN:
        console.print(f"  ... and {inherited - INHERITED_SHOWN} more ops inherit their error (the JSON report lists every finding)",
                      highlight=False)

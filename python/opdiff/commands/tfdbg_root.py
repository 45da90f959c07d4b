"""A tfdbg dump root in `opdiff convert -d ROOT` and `opdiff info ROOT`: its steps exported to
golden .npy files, its runs and tensors listed."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional, Tuple

from opdiff.commands.errors import print_error, print_note
from opdiff.commands.exit_codes import ExitCode

if TYPE_CHECKING:
    from rich.console import Console

    from opdiff.dumps.tfdbg.model import Run, TfdbgRoot


def is_tfdbg_root(spec: str) -> bool:
    from opdiff.dumps.tfdbg.detect import tfdbg_version

    return "," not in spec and tfdbg_version(spec) != 0


def convert_root(args: argparse.Namespace) -> int:
    """Write the golden .npy files of step ``--step`` into -out, or of every step into
    ``-out/step_{n}/``; a tensor without numbers (strings, resources) is listed, a damaged one
    listed too, and the exit status then 11 (invalid dump data), as for dump files."""
    from rich.console import Console
    from rich.table import Table

    from opdiff.dumps.tfdbg.export import export_run
    from opdiff.dumps.tfdbg.roots import read_tfdbg_root

    console = Console(stderr=True)
    try:
        root = read_tfdbg_root(args.dump)
        chosen: List[Tuple[Run, Path]] = ([(root.step(args.step), Path(args.output))] if args.step is not None else
                                          [(run, Path(args.output) / f"step_{run.step}") for run in root.steps])
    except (OSError, ValueError) as error:
        print_error(f"{error}", console)
        return ExitCode.BAD_INPUT
    if not chosen:
        print_error(f"{args.dump}: no run of this tfdbg root counts as a step ({root.rule})", console)
        return ExitCode.BAD_INPUT
    table = Table(title="opdiff convert (tfdbg)", show_header=True)
    for column in ("step", "run", "files written", "not written", "output"):
        table.add_column(column, overflow="fold")
    failed = 0
    for run, out in chosen:
        try:
            done = export_run(run, out)
        except OSError as error:
            print_error(f"cannot write to {out}: {error.strerror or error}", console)
            return ExitCode.BAD_INPUT
        for key, why in done.problems:
            print_note(f"{key}: {why}", console, label="skipped ")
        failed += len(done.damaged)
        table.add_row(str(run.step), run.label, str(len(done.written)), str(len(done.unreadable)), str(out))
    Console().print(table)
    for where, why in root.problems:
        print_note(f"{where}: {why}", console, label="skipped ")
    return ExitCode.INVALID_DUMP_DATA if failed or root.problems else ExitCode.OK


def print_root(path: str, console: Console, step: Optional[int] = None) -> int:
    """The runs of a tfdbg root (steps and the runs not counted), then the tensors of one step."""
    from opdiff.dumps.tfdbg.roots import read_tfdbg_root

    try:
        root = read_tfdbg_root(path)
    except (OSError, ValueError) as error:
        print_error(f"{error}")
        return ExitCode.BAD_INPUT
    console.print(_runs_table(root))
    console.print(f"[dim]steps: {root.rule}[/]", soft_wrap=True, highlight=False)
    for where, why in root.problems:
        print_note(f"{where}: {why}", console, label="unreadable ")
    if root.steps:
        console.print(_tensors_table(root.step(step)))
    return ExitCode.INVALID_DUMP_DATA if root.problems else ExitCode.OK


def _runs_table(root: TfdbgRoot) -> object:
    from rich.table import Table

    table = Table(title=f"tfdbg v{root.version} root {root.path}")
    for column in ("run", "label", "fetches", "step", "tensors"):
        table.add_column(column, justify="right" if column in ("run", "step", "tensors") else "left", overflow="fold")
    for run in root.runs:
        table.add_row(str(run.number), run.label, ", ".join(run.fetches) or "-",
                      "-" if run.step is None else str(run.step), str(len(run.tensors)))
    return table


def _tensors_table(run: Run) -> object:
    from rich.table import Table

    table = Table(title=f"tensors of step {run.step} ({run.label})")
    for column in ("op", "slot", "timestamp", "dumped as"):
        table.add_column(column, justify="right" if column in ("slot", "timestamp") else "left", overflow="fold")
    for ref in run.tensors:
        table.add_row(ref.op_name, str(ref.output_slot), str(ref.timestamp), ref.dumped_name or "-")
    return table

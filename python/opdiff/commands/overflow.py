"""`opdiff overflow DIR`: the ops of a dump folder that overflowed, in execution order, found by the
device's Opdebug records and by scanning the tensors, and overflow_summary_<timestamp>.txt."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

from opdiff.commands.args.output import add_output
from opdiff.commands.args.threads import add_threads
from opdiff.commands.errors import print_error, print_note
from opdiff.commands.exit_codes import ExitCode

if TYPE_CHECKING:
    from rich.table import Table

    from opdiff.engine.overflow_scan import OverflowOp, OverflowScan, TensorReport



def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "overflow",
        help="find the ops that overflowed (Opdebug records; fp16 |x| >= 65504, NaN/Inf in fp16/bf16/fp32)",
        description="Search a dump folder (recursively, 30 levels) and list the ops that overflowed, in timestamp order: "
        "those named by the device's Opdebug.Node_OpDebug records (matched to their NPU dumps by task and stream id) "
        "and those whose outputs overflow (tensor scan). With --fail, exit code 4 when any overflows (for CI).",
    )
    parser.add_argument("folder", nargs="?", type=Path, help="dump folder (any level of the device layout)")
    parser.add_argument("-d", "--dump-path", dest="dump_path", type=Path, help="the dump folder (the reference's flag)")
    add_output(parser, "overflow_summary_<ts>.txt")
    parser.add_argument("-n", "--top", type=int, default=None,
                        help="decode only the first N Opdebug records and list only the first N ops (default: all; "
                        "the reference tool allows 1..5, any N >= 1 here)")
    parser.add_argument("--records-only", action="store_true", help="skip the tensor scan: Opdebug records only")
    add_threads(parser, "threads per tensor")
    parser.add_argument("--fail", action="store_true", help="exit 4 when an op overflows")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from opdiff.engine.overflow_scan import op_kind, scan_overflow, write_overflow_summary

    errors = Console(stderr=True)
    folder = args.dump_path or args.folder
    if folder is None:
        print_error("give the dump folder (opdiff overflow DIR)", errors)
        return ExitCode.BAD_INPUT
    if args.top is not None and args.top < 1:
        print_error("-n wants a count >= 1", errors)
        return ExitCode.BAD_INPUT
    try:
        scan = scan_overflow(folder, threads=args.threads, max_records=args.top, tensor_scan=not args.records_only)
    except (ValueError, OSError) as error:
        print_error(f"{error}", errors)
        return ExitCode.BAD_INPUT
    console = Console()
    if scan.ops:
        console.print(_table(scan, scan.ops[: args.top]))
        first = scan.ops[0]
        console.print(f"[bold red]first overflow:[/] {first.op_name or 'task ' + str(first.task_id)} ({first.op_type or op_kind(first)}) "
                      f"at timestamp {first.timestamp}; later overflows usually follow from it", highlight=False, soft_wrap=True)
    else:
        console.print(f"[green]no overflow[/] in {scan.scanned} dump files and {scan.records} Opdebug records under {scan.folder}",
                      highlight=False, soft_wrap=True)
    for path, reason in scan.unreadable:
        print_note(f"{path}: {reason}", console, label="  unreadable: ", style="dim")
    try:
        summary = write_overflow_summary(scan, args.output, args.top)
    except OSError as error:
        print_error(f"{error}", errors)
        return ExitCode.BAD_INPUT
    console.print(f"summary: {summary}", highlight=False, soft_wrap=True)
    return ExitCode.OVERFLOW if scan.ops and args.fail else ExitCode.OK


def _table(scan: OverflowScan, shown: List[OverflowOp]) -> Table:
    """One row per overflowing tensor of each op; an op an Opdebug record named shows one row even
    when no tensor of it overflows (or its dump was not found)."""
    from rich import box
    from rich.table import Table

    from opdiff.engine.overflow_scan import op_kind, op_status

    title = (f"overflowing ops in {scan.folder} ({len(scan.ops)} ops; {scan.records} Opdebug records, "
             f"{scan.scanned} dumps; execution order)")
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    numeric = ("#", "min", "max", "mean", "NaN", "+Inf", "-Inf")
    for column in ("#", "timestamp", "found by", "unit", "status", "op type", "op", "tensor", "dtype", "shape", *numeric[1:], "why"):
        table.add_column(column, justify="right" if column in numeric else "left", overflow="fold")
    for k, op in enumerate(shown, start=1):
        found_by = " + ".join("Opdebug" if s.value.startswith("Opdebug") else "tensors" for s in op.sources)
        unit, status = (op_kind(op), op_status(op)) if op.debug else ("", "")
        head = [str(k), str(op.timestamp), found_by, unit, status, op.op_type or "?", op.op_name or f"(no dump of task {op.task_id})"]
        rows: List[Optional[TensorReport]] = list(op.overflowing) or [None]
        for t in rows:
            if t is None:
                table.add_row(*head, *[""] * 10)
                continue
            s = t.stats
            assert s is not None
            table.add_row(*head, f"{t.role}.{t.index}", t.dtype, ",".join(str(d) for d in t.shape), f"{s.min:.6g}",
                          f"{s.max:.6g}", f"{s.mean:.6g}", str(s.nan), str(s.pos_inf), str(s.neg_inf), t.why or "")
    return table

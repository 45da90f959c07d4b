"""`opdiff overflow DIR`: the ops of a dump folder whose outputs overflow, in execution order, and
overflow_summary_<timestamp>.txt."""

from __future__ import annotations

import argparse
from pathlib import Path

EXIT_OK, EXIT_BAD_INPUT, EXIT_OVERFLOW = 0, 2, 4


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "overflow",
        help="find the ops whose outputs overflow (fp16 |x| >= 65504, NaN/Inf in fp16/bf16/fp32)",
        description="Scan a dump folder (recursively) and list the ops whose outputs overflow, in timestamp order. "
        "With --fail, exit code 4 when any overflows (for CI).",
    )
    parser.add_argument("folder", nargs="?", type=Path, help="dump folder (any level of the device layout)")
    parser.add_argument("-d", "--dump-path", dest="dump_path", type=Path, help="the dump folder (the reference's flag)")
    parser.add_argument("-out", "--output", type=Path, default=Path("."), help="folder for overflow_summary_<ts>.txt")
    parser.add_argument("-n", "--top", type=int, default=None, help="list only the first N overflowing ops (default: all)")
    parser.add_argument("-j", "--threads", type=int, default=0, help="threads per tensor (default: every core)")
    parser.add_argument("--fail", action="store_true", help="exit 4 when an op overflows")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from opdiff.overflow import scan_overflow, write_overflow_summary

    errors = Console(stderr=True)
    folder = args.dump_path or args.folder
    if folder is None:
        errors.print("[red]error:[/] give the dump folder (opdiff overflow DIR)")
        return EXIT_BAD_INPUT
    if args.top is not None and args.top < 1:
        errors.print("[red]error:[/] -n wants a count >= 1")
        return EXIT_BAD_INPUT
    try:
        scan = scan_overflow(folder, threads=args.threads or None)
    except (ValueError, OSError) as error:
        errors.print(f"[red]error:[/] {error}", highlight=False)
        return EXIT_BAD_INPUT
    console = Console()
    shown = scan.ops[: args.top]
    table = Table(title=f"overflowing ops in {scan.folder} ({len(scan.ops)} of {scan.scanned} dumps, execution order)",
                  title_justify="left", box=box.SIMPLE_HEAD)
    for column in ("#", "timestamp", "op type", "op", "tensor", "dtype", "shape", "min", "max", "mean", "NaN", "+Inf", "-Inf", "why"):
        table.add_column(column, justify="right" if column in ("#", "min", "max", "mean", "NaN", "+Inf", "-Inf") else "left",
                         overflow="fold")
    for k, op in enumerate(shown, start=1):
        for t in op.overflowing:
            s = t.stats
            assert s is not None
            table.add_row(str(k), str(op.timestamp), op.op_type, op.op_name, f"{t.role}.{t.index}", t.dtype,
                          ",".join(str(d) for d in t.shape), f"{s.min:.6g}", f"{s.max:.6g}", f"{s.mean:.6g}",
                          str(s.nan), str(s.pos_inf), str(s.neg_inf), t.why or "")
    if scan.ops:
        console.print(table)
        first = scan.ops[0]
        console.print(f"[bold red]first overflow:[/] {first.op_name} ({first.op_type}) at timestamp {first.timestamp}; "
                      "later overflows usually follow from it", highlight=False)
    else:
        console.print(f"[green]no overflow[/] in {scan.scanned} dump files under {scan.folder}", highlight=False)
    for path, reason in scan.unreadable:
        console.print(f"  [dim]unreadable:[/] {path}: {reason}", highlight=False)
    try:
        summary = write_overflow_summary(scan, args.output, args.top)
    except OSError as error:
        errors.print(f"[red]error:[/] {error}", highlight=False)
        return EXIT_BAD_INPUT
    console.print(f"summary: {summary}", highlight=False)
    return EXIT_OVERFLOW if scan.ops and args.fail else EXIT_OK

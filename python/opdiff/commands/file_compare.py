"""`opdiff file-compare -m A.npy -g B.npy`: two .npy files, every metric, file_result_<timestamp>.txt."""

from __future__ import annotations

import argparse
from pathlib import Path

from opdiff.commands.args.output import add_output
from opdiff.commands.args.threads import add_threads
from opdiff.commands.errors import print_error
from opdiff.commands.exit_codes import ExitCode


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "file-compare",
        aliases=["file_compare"],
        help="compare two .npy files of the same shape",
        description="Compare two .npy files element by element (the metrics of compare, without KL divergence and "
        "StandardDeviation, as the reference's file_compare) and write file_result_<timestamp>.txt.",
    )
    parser.add_argument("-m", "--my-file", required=True, type=Path, help="the compared .npy file")
    parser.add_argument("-g", "--golden-file", required=True, type=Path, help="the golden .npy file")
    add_output(parser, "file_result_<ts>.txt")
    add_threads(parser, "threads")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from opdiff.engine.file_compare import compare_files, write_file_result

    try:
        result = compare_files(args.my_file, args.golden_file, threads=args.threads)
        path = write_file_result(result, args.output)
    except (ValueError, OSError) as error:
        print_error(f"{error}")
        return ExitCode.BAD_INPUT
    console = Console()
    table = Table(title=f"{result.my.name} vs {result.golden.name}, shape {list(result.shape)}", title_justify="left",
                  box=box.SIMPLE_HEAD)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for line in result.lines():
        name, value = line.split(": ", 1)
        table.add_row(name, value)
    console.print(table)
    console.print(f"result: {path}", highlight=False, soft_wrap=True)
    return ExitCode.OK

"""`opdiff info PATH`: every tensor of a dump (or .npy) file in a table; --stats adds values. A
statistics CSV or a dump folder is listed by commands/info_statistics.py, a tfdbg root by
commands/tfdbg_root.py."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, List, Optional, Sequence

from opdiff.commands.args.threads import add_threads
from opdiff.commands.errors import print_error
from opdiff.commands.exit_codes import ExitCode

if TYPE_CHECKING:
    from rich.table import Table

    from opdiff.dumps import DumpFile, DumpTensor


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("info", help="list the tensors of dump or .npy files")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="dump, .npy or statistics .csv files, or dump folders (what kind of side each is)")
    parser.add_argument("--stats", action="store_true", help="add min/max/mean and NaN/Inf counts (read through the core)")
    add_threads(parser, "threads for --stats")
    parser.set_defaults(run=run)


def _shape(dims: Sequence[int], separator: str = ",") -> str:
    return "[" + separator.join(str(d) for d in dims) + "]"


def run(args: argparse.Namespace) -> int:
    from rich import box
    from rich.console import Console
    from rich.markup import escape
    from rich.measure import Measurement
    from rich.table import Table

    from opdiff.dumps import DumpFormatError, read_dump

    console = Console()
    status = 0
    for path in args.paths:
        if os.path.isdir(path):
            from opdiff.commands.tfdbg_root import is_tfdbg_root, print_root

            if is_tfdbg_root(path):
                status = print_root(path, console) or status
                continue
        if path.endswith(".csv") or os.path.isdir(path):
            from opdiff.commands.info_statistics import print_side_or_statistics

            status = print_side_or_statistics(path, console) or status
            continue
        try:
            dump = read_dump(path)
        except DumpFormatError as error:
            print_error(f"{error}")
            status = int(ExitCode.INVALID_DUMP_DATA)  # the others are still listed
            continue
        # the title on its own line: rich wraps a table's title at the table's width and crops it
        console.print(f"{escape(dump.path.name)}  [dim]({dump.form}, op {escape(dump.op_name or '-')}, version {dump.version or '-'}, "
                      f"timestamp {dump.timestamp or '-'})[/]")
        table = _tensor_table(dump, ",")
        if Measurement.get(console, console.options.update_width(1 << 16), table).maximum > console.width:
            table = _tensor_table(dump, ", ")  # too wide: shapes wrap between dimensions
        stats = Table(box=box.SIMPLE_HEAD, pad_edge=False)
        for column in ("io", "index", "min", "max", "mean", "NaN", "Inf"):
            stats.add_column(column, justify="left" if column == "io" else "right", no_wrap=True)
        for tensor in dump.tensors:
            if args.stats:
                stats.add_row(tensor.role.value, str(tensor.index), *_stats_cells(tensor, args.threads))
        console.print(table)
        if args.stats:
            console.print(stats)
    return status


def _tensor_table(dump: DumpFile, separator: str) -> Table:
    """The tensors of `dump`, shapes written with `separator` between dimensions (", " lets a narrow
    terminal wrap a shape between dimensions, never inside a number); no address column when no
    tensor has one."""
    from rich import box
    from rich.table import Table as RichTable

    table = RichTable(box=box.SIMPLE_HEAD, pad_edge=False)
    with_address = any(tensor.address for tensor in dump.tensors)
    columns = ["io", "index", "dtype", "format", "shape", "original shape", "bytes"] + (["address"] if with_address else [])
    # Identifiers never shrink to "fl…" on a narrow terminal: the statistics get a table of their own.
    for column in columns:
        shape = column in ("shape", "original shape")
        table.add_column(column, justify="right" if column in ("index", "bytes") else "left",
                         no_wrap=not shape, overflow="fold", min_width=8 if shape else None)
    for tensor in dump.tensors:
        dtype = tensor.dtype or tensor.data_type_name  # the DT_* name only when opdiff cannot decode it
        layout = tensor.format_name + (f" g{tensor.sub_format}" if tensor.sub_format > 1 else "")
        cells = [tensor.role.value, str(tensor.index), dtype, layout, _shape(tensor.shape, separator),
                 _shape(tensor.original_shape, separator) if tensor.original_shape else "-", f"{tensor.size:,}"]
        table.add_row(*cells, *([hex(tensor.address) if tensor.address else "-"] if with_address else []))
    return table


def _stats_cells(tensor: DumpTensor, threads: Optional[int]) -> List[str]:
    from opdiff.dumps import DumpFormatError, tensor_stats

    try:
        try:
            stats = tensor_stats(tensor, threads=threads)
        except DumpFormatError:
            # The logical layout needs a shape the dump lacks: the stored elements have the same values.
            stats = tensor_stats(tensor.view(as_stored=True), threads=threads)
    except DumpFormatError as error:
        return ["[red]n/a[/]", "", "", "", str(error).rsplit(": ", 1)[-1][:40]]
    return [f"{stats.min:.6g}", f"{stats.max:.6g}", f"{stats.mean:.6g}", str(stats.nan), str(stats.pos_inf + stats.neg_inf)]

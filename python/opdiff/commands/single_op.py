"""`opdiff compare ... -op NAME [-o I | -i I] [-n TOPN]`: the detail of one op's tensor."""

from __future__ import annotations

import argparse

from opdiff.commands.args.compare_options import compare_options
from opdiff.commands.errors import print_error
from opdiff.commands.exit_codes import ExitCode

TOPN_RANGE = (1, 10_000)


def run_single_op(args: argparse.Namespace) -> int:
    from rich.console import Console

    from opdiff.dumps import DumpFormatError
    from opdiff.engine.single_op import single_op_detail
    from opdiff.graph import GraphFormatError
    from opdiff.report.single_op.console import print_single_op
    from opdiff.report.single_op.files import write_single_op_files

    errors = Console(stderr=True)
    role, index = ("input", args.input_index) if args.input_index is not None else ("output", args.output_index or 0)
    try:
        if not TOPN_RANGE[0] <= args.topn <= TOPN_RANGE[1]:
            raise ValueError(f"-n must be within {TOPN_RANGE[0]}..{TOPN_RANGE[1]}, got {args.topn}")
        detail = single_op_detail(args.my_dump_path, args.golden_dump_path, args.op, role=role, index=index, top=args.topn,
                                  options=compare_options(args))
        args.output.mkdir(parents=True, exist_ok=True, mode=0o700)
        written = write_single_op_files(detail, args.output, element_csv=args.element_csv and not args.ignore_single_op_result,
                                        max_line=args.max_line)
    except (ValueError, OSError, DumpFormatError, GraphFormatError) as error:
        print_error(f"{error}", errors)
        return ExitCode.BAD_INPUT
    console = Console()
    print_single_op(detail, console)
    for path in written:
        console.print(f"wrote {path}", highlight=False, soft_wrap=True)
    return ExitCode.OK

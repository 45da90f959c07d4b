"""`opdiff compare`: compare two dump folders op by op (the reference tool's flags are accepted)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from opdiff.commands.args.compare_options import add_compare_arguments, compare_options
from opdiff.commands.args.verdict import limits_of
from opdiff.commands.errors import print_error
from opdiff.commands.exit_codes import ExitCode
from opdiff.fileio.phase_marks import mark_phase

if TYPE_CHECKING:
    from opdiff.engine.options import CompareOptions, ReadRules


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare an NPU dump folder with golden .npy files or another NPU dump folder",
        description="Compare the tensors of two runs op by op and write result_<timestamp>.csv.",
        allow_abbrev=False,
    )
    add_compare_arguments(parser)  # commands/args/: each group declares its flags once
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    code = _run(args)
    if getattr(args, "whole_process", False):
        from opdiff.commands.exit_codes import exit_now

        exit_now(code)  # reports are written and closed; freeing thousands of rows would only cost time
    return code


def _run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from opdiff.engine.comparison import compare
    from opdiff.graph import GraphFormatError
    from opdiff.report.file_names import result_file_name
    from opdiff.report.formats import parse_report_formats

    errors = Console(stderr=True)
    mark_phase("imported")
    if args.op is not None:
        from opdiff.commands.single_op import run_single_op

        if args.isolate is not None:
            print_error(f"{args.isolate}: --isolate compares every op: it does not combine with -op", errors)
            return ExitCode.BAD_INPUT
        return run_single_op(args)
    from opdiff.commands.compare.runs import run_many, wants_many_runs

    if wants_many_runs(args):  # a dump tree, a folder of rules or --scheduler
        if args.isolate is not None:
            print_error(f"{args.isolate}: --isolate applies to one comparison, not to a plan of many runs", errors)
            return ExitCode.BAD_INPUT
        return run_many(args)
    try:
        formats = parse_report_formats(args.report)
        limits = limits_of(args)
        if "xlsx" in formats:
            from opdiff.report.tensor.xlsx_writer import require_xlsxwriter

            require_xlsxwriter()
        options = compare_options(args)
        rules = options.read_rules()
        options = options.with_rules(rules)
        mark_phase("rule-read")
        from opdiff.commands.compare.isolate import check_isolate_args

        source_model = check_isolate_args(args, rules.fusion)
        args.output.mkdir(parents=True, exist_ok=True, mode=0o700)
        if options.mapping_only:
            return write_mapping(args, options, rules)
        report = compare(args.my_dump_path, args.golden_dump_path, options.replace(csv=args.output / result_file_name()))
        if source_model is not None and rules.fusion is not None:
            from opdiff.commands.compare.isolate import run_isolation
            from opdiff.results.protocol import ResultFamily

            if report.family is not ResultFamily.TENSOR:
                raise ValueError(f"{args.isolate}: --isolate needs full dumps on both sides, not statistics dumps")
            run_isolation(report, args, rules.fusion, source_model, Console())
    except (ValueError, OSError, GraphFormatError) as error:
        print_error(f"{error}", errors)
        return ExitCode.BAD_INPUT
    from opdiff.commands.compare.finish import finish_compare

    code = finish_compare(report, args, formats, limits, rules.fusion)
    mark_phase("reported")
    return code


def write_mapping(args: argparse.Namespace, options: CompareOptions, rules: ReadRules) -> int:
    from rich.console import Console

    from opdiff.match.mapping_csv import write_mapping_csv
    from opdiff.match.planning import plan
    from opdiff.report.file_names import mapping_file_name

    _, plans, _, _ = plan(args.my_dump_path, args.golden_dump_path, fusion_rule=rules.fusion, close_fusion_rule=rules.close,
                          quant_fusion_rule=rules.quant, ids=rules.ids, step=options.step,
                          all_occurrences=options.all_occurrences, slices_apart=options.ffts)
    path = write_mapping_csv(plans, args.output / mapping_file_name())
    Console().print(f"mapping: {path}", soft_wrap=True)
    return ExitCode.OK

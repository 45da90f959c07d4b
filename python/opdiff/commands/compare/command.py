"""`opdiff compare`: compare two dump folders op by op (the reference tool's flags are accepted)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from opdiff.commands.compare.options import check_common_flags, parse_algorithms, parse_ids, parse_limits
from opdiff.commands.errors import print_error
from opdiff.commands.exit_codes import ExitCode

if TYPE_CHECKING:
    from opdiff.match.planning import RuleLike


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare an NPU dump folder with golden .npy files or another NPU dump folder",
        description="Compare the tensors of two runs op by op and write result_<timestamp>.csv.",
        allow_abbrev=False,
    )
    parser.add_argument("-m", "--my-dump-path", required=True, type=Path, help="NPU dump folder (any level of the device layout)")
    parser.add_argument("-g", "--golden-dump-path", required=True, type=Path, help="golden .npy folder or NPU dump folder")
    parser.add_argument("-f", "--fusion-rule-file", type=Path,
                        help="the NPU model: .om file, its atc --mode=1 JSON, or a GE graph dump (ge_proto_*.txt, ge_onnx_*.pbtxt)")
    parser.add_argument("-cf", "--close-fusion-rule-file", type=Path, help="the fusion-off model (.om, JSON or GE graph dump), with -f")
    parser.add_argument("-q", "--quant-fusion-rule-file", type=Path, help="the quantization fusion rule (.om or JSON), with -f")
    parser.add_argument("-out", "--output", type=Path, default=Path("."), help="folder for the result file (default: here)")
    parser.add_argument("-alg", "--algorithm", nargs="+", metavar="ALG",
                        help="algorithms by index or name: '-alg 0 1 4' or '-alg 0,MaxAbsoluteError' (default: all)")
    selection = parser.add_mutually_exclusive_group()
    selection.add_argument("-r", "--range", help="START,END,STEP over fusion-rule ids (1-based; END=-1 means the last)")
    selection.add_argument("-s", "--select", help="comma-separated fusion-rule ids")
    parser.add_argument("-max", "--max-cmp-size", dest="max_cmp_size", type=int, default=0, metavar="N",
                        help="compare only the first N elements of each tensor against golden files (default 0: all; "
                        "NPU against NPU always compares everything)")
    parser.add_argument("-overflow_detection", "--overflow-detection", action="store_true",
                        help="add the OverFlow column (fp16 |x| >= 65504 or Inf on my side)")
    parser.add_argument("-advisor", "--advisor", action="store_true",
                        help="find the culprit: first divergence, culprit vs accumulated error, overflow, input mismatch "
                        "(implies -overflow_detection; writes advisor_summary.txt)")
    parser.add_argument("--ignore-ops", action="append", default=[], metavar="PATTERN",
                        help="keep ops matching this pattern (fnmatch) out of the advisor's analysis")
    parser.add_argument("-map", "--map", action="store_true",
                        help="only write mapping_<timestamp>.csv: which files each tensor is compared with (needs -f or -q)")
    parser.add_argument("--report", default="csv", metavar="FORMATS",
                        help="comma-separated report formats beside the console: csv (always written), json, html, xlsx "
                        "(result_<ts>.<format> beside the CSV; json and html carry the advisor's findings), model-explorer "
                        "(Model Explorer node data, result_<ts>.<metric>.node_data.json, for opdiff view)")
    single = parser.add_argument_group("single-op detail (-op)")
    single.add_argument("-op", "--op-name", dest="op", metavar="NAME",
                        help="detail of one op's tensor instead of the whole network: top-N worst elements, histogram, files")
    side = single.add_mutually_exclusive_group()
    side.add_argument("-o", "--output-index", dest="output_index", type=int, metavar="I", help="the op's output I (default: 0)")
    side.add_argument("-i", "--input-index", dest="input_index", type=int, metavar="I", help="the op's input I")
    single.add_argument("-n", "--topn", type=int, default=20, metavar="N", help="worst elements listed (1..10000, default 20)")
    single.add_argument("-ml", "--max-line", type=int, default=1_000_000, metavar="LINES",
                        help="lines per per-element CSV chunk (10000..1000000), with --element-csv")
    single.add_argument("--element-csv", action="store_true",
                        help="also write one CSV line per element ({prefix}_{start}.csv; huge for big tensors)")
    single.add_argument("--ignore_single_op_result", "--ignore-single-op-result", action="store_true",
                        help="the reference's flag to skip the per-element CSVs; opdiff skips them unless --element-csv")
    parser.add_argument("--isolate", metavar="MODEL",
                        help="re-run each op alone on the device's own inputs through MODEL, the source .onnx the device "
                        "model was converted from (needs -f and pip install \"opdiff[onnx]\"); writes isolation_<timestamp>.csv "
                        "and the advisor tells a culprit from what it inherited (docs/isolating-an-op.md)")
    parser.add_argument("--step", type=int, help="which dump step to use when a folder holds several (default: the last)")
    parser.add_argument("--all", dest="all_occurrences", action="store_true",
                        help="compare every dump of an op (an op run several times in one step), not only the newest; "
                        "rows are named op#0, op#1, ... and ordered run by run")
    parser.add_argument("--threads", type=int, help="tensor pairs compared at once (default: every core)")
    parser.add_argument("--fail-under", action="append", default=[], metavar="METRIC=VALUE",
                        help="replace the default verdict by these limits (repeatable; CosineSimilarity fails below VALUE, "
                        "error metrics and NormRatioError above it) and exit 3 when a row violates one")
    parser.add_argument("--fail", action="store_true",
                        help="exit 3 when the verdict fails any tensor (for CI)")
    parser.add_argument("--thresholds", choices=("default", "reference"), default="default",
                        help="the verdict: default (per dtype pair: cosine and NormRatioError, docs/metrics.md) or "
                        "reference (the reference tool's CosineSimilarity >= 0.99 alone)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="show a progress bar (default: when the output is a terminal)")
    from opdiff.commands.compare.runs import add_arguments

    add_arguments(parser)  # --scheduler and TLS: many runs (commands/compare/runs.py)
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
    from opdiff.graph import GraphFormatError, read_graph
    from opdiff.report.file_names import result_file_name
    from opdiff.report.formats import parse_report_formats

    errors = Console(stderr=True)
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
        limits = parse_limits(args.fail_under, args.thresholds)
        if "xlsx" in formats:
            from opdiff.report.tensor.xlsx_writer import require_xlsxwriter

            require_xlsxwriter()
        algorithms = parse_algorithms(args.algorithm)
        check_common_flags(args)
        if (args.range or args.select) and not args.fusion_rule_file:
            raise ValueError("-r and -s select fusion-rule ids: they need -f")
        fusion_rule = read_graph(args.fusion_rule_file) if args.fusion_rule_file else None
        close_rule = read_graph(args.close_fusion_rule_file) if args.close_fusion_rule_file else None
        quant_rule = read_graph(args.quant_fusion_rule_file) if args.quant_fusion_rule_file else None
        last_id = max((op.id for op in fusion_rule.ops), default=0) if fusion_rule else 0
        ids = parse_ids(args.range, args.select, last_id)
        from opdiff.commands.compare.isolate import check_isolate_args

        source_model = check_isolate_args(args, fusion_rule)
        args.output.mkdir(parents=True, exist_ok=True, mode=0o700)
        if args.map:
            return write_mapping(args, fusion_rule, close_rule, quant_rule, ids)
        report = compare(
            args.my_dump_path,
            args.golden_dump_path,
            fusion_rule=fusion_rule,
            close_fusion_rule=close_rule,
            quant_fusion_rule=quant_rule,
            algorithms=algorithms,
            overflow_detection=args.overflow_detection or args.advisor,
            ids=ids,
            step=args.step,
            threads=args.threads,
            progress=sys.stdout.isatty() if args.progress is None else args.progress,
            csv=args.output / result_file_name(),
            max_elements=args.max_cmp_size,
            all_occurrences=args.all_occurrences,
        )
        if source_model is not None and fusion_rule is not None:
            from opdiff.commands.compare.isolate import run_isolation
            from opdiff.results.protocol import ResultFamily

            if report.family is not ResultFamily.TENSOR:
                raise ValueError(f"{args.isolate}: --isolate needs full dumps on both sides, not statistics dumps")
            run_isolation(report, args, fusion_rule, source_model, Console())
    except (ValueError, OSError, GraphFormatError) as error:
        print_error(f"{error}", errors)
        return ExitCode.BAD_INPUT
    from opdiff.commands.compare.finish import finish_compare

    return finish_compare(report, args, formats, limits, fusion_rule)


def write_mapping(args: argparse.Namespace, fusion_rule: RuleLike, close_rule: RuleLike, quant_rule: RuleLike,
                  ids: Optional[Sequence[int]]) -> int:
    from rich.console import Console

    from opdiff.match.mapping_csv import write_mapping_csv
    from opdiff.match.planning import plan
    from opdiff.report.file_names import mapping_file_name

    if fusion_rule is None and quant_rule is None:
        raise ValueError("-map needs -f or -q")
    _, plans, _, _ = plan(args.my_dump_path, args.golden_dump_path, fusion_rule=fusion_rule,
                          close_fusion_rule=close_rule, quant_fusion_rule=quant_rule, ids=ids, step=args.step,
                          all_occurrences=args.all_occurrences)
    path = write_mapping_csv(plans, args.output / mapping_file_name())
    Console().print(f"mapping: {path}", soft_wrap=True)
    return ExitCode.OK

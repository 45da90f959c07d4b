"""What a comparison writes and shows beside its CSV: --report, -advisor, --ignore-ops, --progress, -map."""

from __future__ import annotations

import argparse
import sys

from opdiff.engine.options import CompareOptions


def add_reports(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--report", default="csv", metavar="FORMATS",
                        help="comma-separated report formats beside the console: csv (always written), json, html, xlsx "
                        "(result_<ts>.<format> beside the CSV; json and html carry the advisor's findings), model-explorer "
                        "(Model Explorer node data, result_<ts>.<metric>.node_data.json, for opdiff view)")
    parser.add_argument("-advisor", "--advisor", action="store_true",
                        help="find the culprit: first divergence, culprit vs accumulated error, overflow, input mismatch "
                        "(implies -overflow_detection; writes advisor_summary.txt)")
    parser.add_argument("--ignore-ops", action="append", default=[], metavar="PATTERN",
                        help="keep ops matching this pattern (fnmatch) out of the advisor's analysis")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="show a progress bar (default: when the output is a terminal)")
    parser.add_argument("-map", "--map", action="store_true",
                        help="only write mapping_<timestamp>.csv: which files each tensor is compared with (needs -f or -q)")


def apply_reports(args: argparse.Namespace, options: CompareOptions) -> CompareOptions:
    """The advisor reads the OverFlow column, so -advisor turns it on; -map needs a rule."""
    if args.map and not (args.fusion_rule_file or args.quant_fusion_rule_file):
        raise ValueError("-map needs -f or -q")
    progress = sys.stdout.isatty() if args.progress is None else args.progress
    return options.replace(overflow_detection=options.overflow_detection or args.advisor, progress=progress,
                           mapping_only=args.map)

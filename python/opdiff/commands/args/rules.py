"""The models a comparison matches through and the op ids it keeps: -f, -cf, -q, -r, -s."""

from __future__ import annotations

import argparse
from pathlib import Path

from opdiff.engine.options import CompareOptions
from opdiff.match.id_selection import IdSelection


def add_fusion_rule(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-f", "--fusion-rule-file", type=Path,
                        help="the NPU model: .om file, its atc --mode=1 JSON, or a GE graph dump (ge_proto_*.txt, ge_onnx_*.pbtxt)")


def add_rules(parser: argparse.ArgumentParser) -> None:
    add_fusion_rule(parser)
    parser.add_argument("-cf", "--close-fusion-rule-file", type=Path, help="the fusion-off model (.om, JSON or GE graph dump), with -f")
    parser.add_argument("-q", "--quant-fusion-rule-file", type=Path, help="the quantization fusion rule (.om or JSON), with -f")
    selection = parser.add_mutually_exclusive_group()
    selection.add_argument("-r", "--range", help="START,END,STEP over fusion-rule ids (1-based; END=-1 means the last)")
    selection.add_argument("-s", "--select", help="comma-separated fusion-rule ids")


def apply_rules(args: argparse.Namespace, options: CompareOptions) -> CompareOptions:
    """The rule files as given (read when the comparison starts; many runs take folders of them),
    and -r/-s as an IdSelection, resolved against each run's rule; ValueError for -r/-s without -f
    (CompareOptions refuses it)."""
    ids = IdSelection(args.range, args.select) if (args.range or args.select) else None
    return options.replace(fusion_rule=args.fusion_rule_file, close_fusion_rule=args.close_fusion_rule_file,
                           quant_fusion_rule=args.quant_fusion_rule_file, ids=ids)

"""The two sides of a comparison and which of their dumps are read: -m, -g, --step, --all, -ffts."""

from __future__ import annotations

import argparse
from pathlib import Path

from opdiff.engine.options import CompareOptions


def add_dump_paths(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    parser.add_argument("-m", "--my-dump-path", required=required, type=Path, help="NPU dump folder (any level of the device layout)")
    parser.add_argument("-g", "--golden-dump-path", required=required, type=Path,
                        help="golden .npy folder, NPU dump folder or tfdbg dump root")
    add_step(parser)
    parser.add_argument("--all", dest="all_occurrences", action="store_true",
                        help="compare every dump of an op (an op run several times in one step), not only the newest; "
                        "rows are named op#0, op#1, ... and ordered run by run")
    parser.add_argument("-ffts", "--ffts", action="store_true",
                        help="FFTS+ against FFTS+: compare each manual-mode slice (op_lxsliceN) with the same slice of the "
                        "other side, without joining the slices")


def add_step(parser: argparse.ArgumentParser) -> None:
    """--step: a device tree's step folder, or a tfdbg root's step (compare -g, convert -d)."""
    parser.add_argument("--step", type=int, help="which dump step to use when a folder holds several (default: the last)")


def apply_dump_paths(args: argparse.Namespace, options: CompareOptions) -> CompareOptions:
    return options.replace(step=args.step, all_occurrences=args.all_occurrences, ffts=args.ffts)

"""``-op NAME`` and its detail flags: one op's tensor instead of the whole network."""

from __future__ import annotations

import argparse


def add_single_op(parser: argparse.ArgumentParser) -> None:
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

"""`opdiff demo`: make a realistic case, compare it and show the report."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "demo",
        help="run a built-in example: a small CNN, fp32 golden .npy vs fp16 Ascend dumps of its fused graph, one op faulty",
    )
    parser.add_argument("--dir", type=Path, help="folder for the generated data (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of weights and input")
    parser.add_argument("--fault", default="block2/conv1", help="op whose weights get scaled on the device")
    parser.add_argument(
        "--fault-scale", type=float, default=1.5, help="scale of the faulty op's weights (a quarter of its channels)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from opdiff.demo.report import run_demo

    if args.dir is not None:
        return run_demo(args.dir, args.seed, args.fault, args.fault_scale)
    with tempfile.TemporaryDirectory(prefix="opdiff-demo-") as folder:
        return run_demo(Path(folder), args.seed, args.fault, args.fault_scale)

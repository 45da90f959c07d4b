"""`opdiff demo`: make a realistic case and compare it (demo/), then show the result (here)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

from opdiff.commands.exit_codes import ExitCode

if TYPE_CHECKING:
    from rich.console import Console

    from opdiff.demo.run import DemoRun


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="run a built-in example: a small CNN, fp32 golden .npy vs fp16 Ascend dumps of its fused graph, one op faulty",
    )
    parser.add_argument("--dir", type=Path, help="folder for the generated data (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of weights and input")
    parser.add_argument("--fault", default="block2/conv1", help="op whose weights get scaled on the device")
    parser.add_argument(
        "--fault-scale", type=float, default=None,
        help="scale of the faulty op's weights (a quarter of its channels; default 1.5); with --statistics, of every "
        "output from --fault-from on (default 1.6); 1 is no fault"
    )
    statistics = parser.add_argument_group("statistics dumps (--statistics)")
    statistics.add_argument("--statistics", action="store_true",
                            help="write and compare a network dumped in statistics mode (one CSV per op) instead")
    statistics.add_argument("--layout", default="NC1HWC0", choices=("ND", "NCHW", "NC1HWC0", "FRACTAL_NZ"),
                            help="stored layout of the statistics network's tensors (default NC1HWC0)")
    statistics.add_argument("--dtype", default="float16", choices=("float16", "bfloat16", "float32"),
                            help="stored data type of the statistics network's tensors (default float16)")
    statistics.add_argument("--fault-from", type=int, default=3, metavar="K",
                            help="the statistics network's op (0-based) from which on outputs are scaled (default 3)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.dir is not None:
        return _run_in(args.dir, args)
    with tempfile.TemporaryDirectory(prefix="opdiff-demo-") as folder:
        return _run_in(Path(folder), args)


def _run_in(folder: Path, args: argparse.Namespace) -> int:
    from rich.console import Console

    console = Console()
    try:
        run = _demo(folder, args)
    except ValueError as error:
        console.print(f"[red]error:[/] {escape(str(error))}", soft_wrap=True)
        return ExitCode.BAD_INPUT
    except OSError as error:  # an unwritable or full output folder
        console.print(f"[red]error:[/] cannot write the demo data to {folder}: {escape(str(error.strerror or error))}", soft_wrap=True)
        return ExitCode.BAD_INPUT
    show_demo(run, console)
    return ExitCode.OK


def _demo(folder: Path, args: argparse.Namespace) -> DemoRun:
    if args.statistics:
        from opdiff.demo.statistics import run_statistics_demo

        scale = 1.6 if args.fault_scale is None else args.fault_scale
        return run_statistics_demo(folder, layout=args.layout, dtype=args.dtype, fault_from=args.fault_from, scale=scale,
                                   seed=args.seed)
    from opdiff.demo.report import run_demo

    return run_demo(folder, args.seed, args.fault, 1.5 if args.fault_scale is None else args.fault_scale)


def show_demo(run: DemoRun, console: Console) -> None:
    """What `opdiff demo` prints: what it wrote, the console report of its result, the advisor."""
    from opdiff.report.tensor.console import print_findings

    console.print(run.description)
    console.print(run.result)
    print_findings(run.findings, console)

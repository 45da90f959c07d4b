"""The `opdiff` command line: one entry point, one module per sub-command under opdiff.commands."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import List, Optional

# Each module defines `register(subparsers)`, which adds its parser and sets `run(args) -> int`.
# Modules are imported lazily per invocation so start-up stays fast.
COMMAND_MODULES = (
    "opdiff.commands.compare",
    "opdiff.commands.demo",
    "opdiff.commands.simd",
    "opdiff.commands.convert",
    "opdiff.commands.info",
    "opdiff.commands.graph",
    "opdiff.commands.overflow",
    "opdiff.commands.file_compare",
    "opdiff.commands.dump_onnx",
)


def build_parser() -> argparse.ArgumentParser:
    from opdiff import __version__

    parser = argparse.ArgumentParser(
        prog="opdiff",
        description="Operator-level accuracy comparison of neural-network inference dumps.",
    )
    parser.add_argument("--version", action="version", version=f"opdiff {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Run the CLI; returns the process exit code (0 done, 1 internal error, 2 bad arguments)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    return int(args.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())

"""The `opdiff` command line: one entry point, one module per sub-command under opdiff.commands."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import List, Optional, Sequence

# Each module defines `register(subparsers)`, which adds its parser (named after the module, "_" as
# "-") and sets `run(args) -> int`. A command line naming a command imports only that module: some
# import numpy or the core at module level, which would double the start-up of `opdiff graph`.
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
    "opdiff.commands.dump_tf",
    "opdiff.commands.dump_caffe",
    "opdiff.commands.precision",
    "opdiff.commands.view",
)


def command_name(module: str) -> str:
    """The sub-command a module of COMMAND_MODULES registers.

    >>> command_name("opdiff.commands.dump_onnx")
    'dump-onnx'
    """
    return module.rsplit(".", 1)[1].replace("_", "-")


def build_parser(modules: Sequence[str] = COMMAND_MODULES) -> argparse.ArgumentParser:
    """The `opdiff` parser with the sub-commands of `modules` (all of them by default)."""
    from opdiff import __version__

    parser = argparse.ArgumentParser(
        prog="opdiff",
        description="Operator-level accuracy comparison of neural-network inference dumps.",
    )
    parser.add_argument("--version", action="version", version=f"opdiff {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        importlib.import_module(name).register(subparsers)
    return parser


def _parser_for(argv: Sequence[str]) -> argparse.ArgumentParser:
    """A parser with only the command `argv` starts with, or with all (help, errors, options first)."""
    # "_" for "-" also finds an alias in the reference's spelling (file_compare).
    modules = [name for name in COMMAND_MODULES if argv and command_name(name) == argv[0].replace("_", "-")]
    return build_parser(modules or COMMAND_MODULES)


def main(argv: Optional[List[str]] = None, *, whole_process: bool = False) -> int:
    """Run the CLI; returns the process exit code (0 done, 1 internal error, 2 bad arguments).

    `whole_process` is for the process entry points only (`python -m opdiff`, the `opdiff` script):
    a command may then end the process itself once its output is flushed (`args.whole_process`),
    skipping the teardown that would free what it built (a tenth of a second for a 50,000-op graph).
    """
    parser = _parser_for(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    args.whole_process = whole_process
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:  # Ctrl-C outside a comparison's rows (reading inputs, naming the files): nothing half-written
        from opdiff.commands.errors import print_error
        from opdiff.commands.exit_codes import ExitCode

        print_error("interrupted (Ctrl-C)")
        return int(ExitCode.INTERRUPTED)
    except Exception as error:  # a bug: say so in one line instead of a traceback, with where it happened
        return report_internal_error(error)


def report_internal_error(error: Exception) -> int:
    """Print an unexpected exception as one ``error:`` line naming where it was raised; EXIT INTERNAL."""
    import traceback

    from opdiff.commands.errors import print_error
    from opdiff.commands.exit_codes import ExitCode

    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno} ({frames[-1].name})" if frames else ""
    print_error(f"internal error, a bug in opdiff: {type(error).__name__}: {error}{where}. Please report it with the "
                "command line and opdiff's version.")
    return int(ExitCode.INTERNAL)


def entry() -> int:
    """The `opdiff` console script."""
    # opdiff does no linear algebra; numpy's OpenBLAS would otherwise start a thread per core at
    # import that spins, taking CPU from the comparison threads (5% of a compare run's CPU).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    return main(whole_process=True)


if __name__ == "__main__":
    sys.exit(entry())

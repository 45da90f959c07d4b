"""``-j / --threads``: how many threads a command uses, declared once for every command.

What a thread does differs by command and the help says it: in compare, tensor pairs (and the files
of many runs) compared at once; in dump-onnx and dump-tf, the framework's own CPU threads, which go
into that producer's options, never into CompareOptions."""

from __future__ import annotations

import argparse

from opdiff.engine.options import CompareOptions


def thread_count(text: str) -> int:
    """A thread count: 0 or more (0: the default, as for none given)."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"wants a count >= 0 (0: the default), got {text}")
    return value


def add_threads(parser: argparse.ArgumentParser, counts: str, default: str = "every core") -> None:
    """``-j N / --threads N`` on `parser`; `counts` says what N counts, `default` what none gives.
    ``args.threads`` is None when not given."""
    parser.add_argument("-j", "--threads", type=thread_count, default=None, metavar="N",
                        help=f"{counts} (default: {default})")


def apply_threads(args: argparse.Namespace, options: CompareOptions) -> CompareOptions:
    return options.replace(threads=args.threads or None)

"""How `opdiff precision` searches and where it evaluates: --mode, --resume, --isolation, and the
device loop's --build, --run and --command-timeout (``args.run_command``: ``args.run`` is the
command's own entry point)."""

from __future__ import annotations

import argparse

from opdiff.precision import DEFAULT_COMMAND_TIMEOUT_S


def add_search(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=("bisect", "linear"), default="bisect",
                        help="bisect the rank order (default) or add one op at a time")
    parser.add_argument("--resume", action="store_true", help="continue the search whose step log DIR holds")
    parser.add_argument("--isolation", metavar="CSV",
                        help="rank the candidates by the local errors of an isolation CSV that compare --isolate wrote "
                        "(default: by each op's own error in one CPU fp16 run that feeds every op the float32 values; "
                        "int8: by the error each adds in one run with nothing kept)")


def add_device_loop(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--build", metavar="CMD",
                        help="evaluate on a device: the command that builds the model with the candidate keep file "
                        "({keep_dtype}) into {om} (an .om or its atc JSON); needs --run")
    parser.add_argument("--run", metavar="CMD", dest="run_command",
                        help="the command that runs the built model ({om}) and dumps into the empty folder {dump}")
    parser.add_argument("--command-timeout", type=float, default=DEFAULT_COMMAND_TIMEOUT_S, metavar="SECONDS",
                        help=f"a --build or --run command running longer stops the search (default {DEFAULT_COMMAND_TIMEOUT_S:g})")

"""`opdiff view OUTDIR [--model X.om|rule.json|model.onnx] [--port P] [--host H] [--no-browser]`: Model
Explorer with the compared model's graph and opdiff's numbers (``compare --report model-explorer``)."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from opdiff.commands.errors import print_error, print_note
from opdiff.commands.exit_codes import ExitCode

DEFAULT_HOST = "127.0.0.1"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "view",
        help="show a comparison's numbers on the model's graph in Model Explorer (needs opdiff[view])",
        description="Start Model Explorer with the model's graph and every node-data file of OUTDIR (written by "
        "opdiff compare --report model-explorer -out OUTDIR), and print its URL. Ctrl+C stops it.",
    )
    parser.add_argument("outdir", metavar="OUTDIR", type=Path, help="the -out folder of opdiff compare --report model-explorer")
    parser.add_argument("--model", type=Path, metavar="MODEL",
                        help="the graph to show: an .om, atc JSON, GE graph dump or .onnx (default: the rule the comparison used)")
    parser.add_argument("--port", type=int, default=8080, help="the port (default 8080, or the next free one up to 8099)")
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help="the address to listen on (default 127.0.0.1: Model Explorer's server hands out any file "
                        "this user can read, so only this machine should reach it)")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser tab")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from opdiff.viewer.serve import INSTALL_HINT, find_view_files, is_loopback

    errors = Console(stderr=True)
    if not is_loopback(args.host):
        print_note(f"Model Explorer listens on {args.host}: whoever reaches it can read any file this user can read "
                   "(its server hands out files by path, /api/v1/read_text_file); 127.0.0.1 keeps it to this machine",
                   errors, label="warning: ")
    if importlib.util.find_spec("model_explorer") is None:
        print_error(INSTALL_HINT, errors)
        return ExitCode.BAD_INPUT
    try:
        found = find_view_files(args.outdir)
    except ValueError as error:
        print_error(f"{error}", errors)
        return ExitCode.BAD_INPUT
    model = args.model or found.rule
    if model is None:
        print_error(f"{args.outdir}: the comparison used no rule file (NPU vs NPU by name, or a rule built in memory); "
                    "name the graph with --model", errors)
        return ExitCode.BAD_INPUT
    if not model.is_file():
        print_error(f"{model}: no such model file", errors)
        return ExitCode.BAD_INPUT
    for note in found.notes:
        print_note(note, errors)
    print(f"opdiff view: {model} with {len(found.node_data)} node-data file(s) of {args.outdir}; "
          f"Model Explorer at http://{args.host}:{args.port}/ (or the next free port it prints below)", flush=True)
    from opdiff.viewer.serve import serve

    serve(model.resolve(), found.node_data, host=args.host, port=args.port, open_browser=not args.no_browser)
    sys.stdout.flush()
    return ExitCode.OK

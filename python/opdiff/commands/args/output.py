"""``-out / --output``: the folder a command writes into, declared once for every command.

dump-onnx and dump-tf also take ``-o`` for it; in compare and convert ``-o`` is the output index
(the reference's meaning), so they do not."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_output(parser: argparse.ArgumentParser, what: str, *, required: bool = False, short_o: bool = False) -> None:
    """``-out DIR / --output DIR`` on `parser` (``args.output``, a Path): the folder for `what`;
    created if missing. Without `required`, the default is the current folder."""
    flags = ("-o", "-out", "--output") if short_o else ("-out", "--output")
    default = "" if required else " (default: here)"
    parser.add_argument(*flags, type=Path, required=required, default=None if required else Path("."), metavar="DIR",
                        help=f"folder for {what}, created if missing{default}")

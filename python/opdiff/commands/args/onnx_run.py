"""How a model is run on the CPU, for dump-onnx, dump-tf and precision: its precision (``--dtype``,
``--keep-fp32``, ``--keep-fp32-file``: also dump-tf's; ``--mixlist``: an ONNX model's) and an ONNX
model's int8 copy (``--qdq``, ``--skip-file``); its inputs are model_inputs.py's. Each flag is
declared here once; the commands read them the same way."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Optional, Tuple

from opdiff.conventions.keep_dtype import KeepList, keep_list, parse_skip_layers, read_keep_dtype
from opdiff.conventions.mixlist import MixLists, read_mixlists


def add_dtype(parser: argparse.ArgumentParser, *, choices: Tuple[str, ...], default: str, help: str) -> None:
    parser.add_argument("--dtype", choices=choices, default=default, help=help)


def add_keep_fp32(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--keep-fp32", default="", metavar="TYPE,...", help="op types kept in fp32 by --dtype fp16 (the model's own types)")
    parser.add_argument("--keep-fp32-file", metavar="FILE",
                        help="ops kept in fp32 by --dtype fp16, in ATC's keep_dtype.cfg format: an op name a line, or "
                        "OpType::X for every op of the model's own type X, ONNX or TensorFlow (docs/what-to-change.md)")


def add_mixlist(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mixlist", action="append", default=[], metavar="FILE",
                        help="with --dtype fp16: ATC's mixed precision (allow_mix_precision) instead of fp16 everywhere: "
                        "CANN's ops-info JSON of the SoC, then any modify_mixlist JSON, applied in order (repeatable; "
                        "docs/what-to-change.md)")


def mixlists_of(args: argparse.Namespace) -> Optional[MixLists]:
    """The mixed-precision lists ``--mixlist`` gives (None without it); ValueError naming a file
    that is not a mixlist, OSError when one cannot be read."""
    return read_mixlists(args.mixlist) if getattr(args, "mixlist", None) else None


def add_qdq(parser: argparse.ArgumentParser, *, help: str) -> None:
    parser.add_argument("--qdq", type=int, metavar="BATCHES", help=help)


def add_skip_file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--skip-file", metavar="FILE",
                        help="with --qdq: ops left unquantized: AMCT's skip_layers : \"NAME\" lines, or an op name a line "
                        "(docs/what-to-change.md)")


def kept_in_fp32(args: argparse.Namespace) -> KeepList:
    """The op names and types ``--keep-fp32`` and ``--keep-fp32-file`` keep in fp32; OSError when
    the file cannot be read."""
    types = [t for t in args.keep_fp32.split(",") if t]
    if not args.keep_fp32_file:
        return keep_list((), types)
    listed = read_keep_dtype(args.keep_fp32_file)
    return keep_list(listed.names, list(listed.types) + types)


def skipped_in_int8(args: argparse.Namespace) -> Tuple[str, ...]:
    """The op names ``--skip-file`` leaves unquantized (none without it); OSError when unreadable."""
    if not getattr(args, "skip_file", None):
        return ()
    return parse_skip_layers(Path(args.skip_file).read_text(encoding="utf-8"))

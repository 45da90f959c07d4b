"""``--input NAME=FILE.npy``, ``--random-inputs SEED`` and ``--input-shape SHAPES``: the inputs of a
producer's run (dump-onnx, dump-tf, dump-caffe), declared once."""

from __future__ import annotations

import argparse


def add_model_inputs(parser: argparse.ArgumentParser, what: str, *, random_note: str = "", input_shape: str = "") -> None:
    """``--input`` (``args.input``: a list of NAME=FILE.npy) and ``--random-inputs`` (``args.random_inputs``)
    on `parser`, `what` naming an input; with `input_shape` (what the shapes are for), also
    ``--input-shape`` (``args.input_shape``: ATC's ``--input_shape`` text, empty when not given)."""
    parser.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy", help=f"value of one {what} (repeatable)")
    parser.add_argument("--random-inputs", type=int, metavar="SEED", help=f"seeded random values for inputs not given{random_note}")
    if input_shape:
        parser.add_argument("--input-shape", default="", metavar="SHAPES",
                            help=f"{input_shape}, written as ATC's --input_shape: 'name:1,3,224,224;name2:4'")

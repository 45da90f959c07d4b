"""`opdiff dump-caffe MODEL.prototxt [MODEL.caffemodel] -o DIR`: golden .npy files of a Caffe net run
on the CPU without Caffe (needs ``pip install "opdiff[onnx]"``).

The net is read with protobuf (a vendored caffe.proto), converted to ONNX layer by layer and run
by ONNX Runtime. DIR/golden/{layer}.{top index}.{timestamp}.npy holds every layer's every top,
in-place layers (a ReLU whose top is its bottom) under their own names; DIR/model.onnx is the
converted graph, DIR/inputs/ the inputs, DIR/manifest.json the run record (docs/producing-caffe-goldens.md).
Without a caffemodel, the weights come from the prototxt's own blobs, if any; a layer type it does
not run exits 2 naming the layer.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from opdiff.commands.args.model_inputs import add_model_inputs
from opdiff.commands.args.output import add_output
from opdiff.commands.args.threads import add_threads
from opdiff.commands.errors import command_failure, print_note
from opdiff.commands.exit_codes import ExitCode

if TYPE_CHECKING:
    from rich.console import Console

    from opdiff.producers import DumpResult


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("dump-caffe", help="golden dumps of a Caffe model run on the CPU (no Caffe needed)",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("prototxt", metavar="MODEL.prototxt", type=Path, help="the net (protobuf text format)")
    parser.add_argument("caffemodel", metavar="MODEL.caffemodel", type=Path, nargs="?", help="its trained weights (binary)")
    add_output(parser, "the dumps, the converted model and the run record", required=True, short_o=True)
    add_model_inputs(parser, "input blob", input_shape="shapes of input blobs (over the prototxt's; needed for Data layers)")
    add_threads(parser, "ONNX Runtime intra-op threads", default="its own choice")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from opdiff.producers import MissingOnnxError, require_onnx
    from opdiff.producers.caffe.dump import dump_caffe, load_caffe
    from opdiff.producers.input_shape import parse_input_shape
    from opdiff.producers.model_inputs import input_specs, load_inputs, parse_input_args

    fail = command_failure("dump-caffe")
    try:
        require_onnx()
    except MissingOnnxError as error:
        return fail(str(error), ExitCode.BAD_INPUT)
    try:
        model = load_caffe(args.prototxt, args.caffemodel, parse_input_shape(args.input_shape))
        feeds, notes = load_inputs(input_specs(model.converted.model), parse_input_args(args.input), args.random_inputs)
    except (ValueError, OSError) as error:  # CaffeFileError and CaffeLayerError are ValueErrors naming the file or layer
        return fail(str(error), ExitCode.BAD_INPUT)
    try:
        result = dump_caffe(model, args.output, feeds, threads=args.threads or 0)
    except Exception as error:  # ONNX Runtime raises its own exception types for graphs it cannot run
        return fail(f"the run failed: {error}", ExitCode.MODEL_RUN_FAILED)
    result.notes[:0] = notes
    _print_result(Console(), result)
    return 0


def _print_result(console: Console, result: DumpResult) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="dump-caffe: golden run", show_header=False)
    table.add_row("tensor files", f"{result.files} in {escape(str(result.tensor_folder))}")
    table.add_row("layers run", str(result.ops))
    table.add_row("converted model", escape(str(result.model_path)))
    table.add_row("timestamp", str(result.timestamp))
    table.add_row("seconds", ", ".join(f"{k} {v:.2f}" for k, v in result.seconds.items()))
    console.print(table)
    for note in result.notes[:20]:
        print_note(note, console)

"""`opdiff dump-tf MODEL.pb -o DIR`: golden .npy files of every op output of a frozen TensorFlow graph,
run on the CPU in graph mode (needs ``pip install "opdiff[tf]"``).
`opdiff dump-tf model.ckpt.meta --train-op train -o DIR` (or a SavedModel folder as MODEL): one
training step, the variables restored from the checkpoint (which is left unchanged), every op's
tensors as of the step: forward, backward, the optimiser's updates and the variable reads.

DIR/golden/{op}.{output index}.{timestamp}.npy, a Placeholder x as the output 0 of the Data op x;
DIR/inputs/ (the inputs used, for --input in the device run), DIR/model.pb (the graph that ran,
random ops seeded; DIR/model.meta for a training step) and DIR/manifest.json (the model outputs,
random ops, and the outputs that could not be fetched, with why).
`--dtype fp16` (a frozen graph only) stands in for a device's fp16 run: every op's float32 inputs
and outputs rounded to fp16 but those kept (--keep-fp32, --keep-fp32-file), written as device dumps
(DIR/dump/) with DIR/fusion_rule.json (docs/what-to-change.md says what the rounding models).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Tuple

from opdiff.commands.args.model_inputs import add_model_inputs
from opdiff.commands.args.onnx_run import add_dtype, add_keep_fp32, kept_in_fp32
from opdiff.commands.args.output import add_output
from opdiff.commands.args.threads import add_threads
from opdiff.commands.errors import command_failure, print_note
from opdiff.commands.exit_codes import ExitCode

if TYPE_CHECKING:
    from rich.console import Console

    from opdiff.producers.tf.dump import TfDumpOptions, TfDumpResult


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("dump-tf", help="golden dumps of a frozen TensorFlow graph run on the CPU",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", metavar="MODEL", help="a frozen GraphDef (.pb); with --train-op, a checkpoint's .meta or a SavedModel folder")
    parser.add_argument("--train-op", metavar="NAME",
                        help="run one training step of this op (MODEL: a checkpoint's .meta or a SavedModel) instead of a frozen graph")
    add_output(parser, "the dumps and the run record", required=True, short_o=True)
    add_model_inputs(parser, "Placeholder", input_shape="sizes of unknown dims (default: unknown dims become 1)")
    parser.add_argument("--random-seed", type=int, default=0, metavar="SEED", help="seed of the graph's unseeded random ops (default 0)")
    add_dtype(parser, choices=("fp32", "fp16"), default="fp32",
              help="fp16: every op's float32 inputs and outputs rounded to fp16, written as device dumps with a fusion rule (default fp32)")
    add_keep_fp32(parser)
    add_threads(parser, "TensorFlow CPU threads", default="its own choice")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from opdiff.producers import MissingTensorFlowError, require_tensorflow

    fail = command_failure("dump-tf")
    try:
        require_tensorflow()
    except MissingTensorFlowError as error:
        return fail(str(error), ExitCode.BAD_INPUT)
    from opdiff.producers.tf.training_model import RestoreError

    try:
        options = _options(args)
        dump, notes = _load_training(args, options) if args.train_op is not None else _load_frozen(args, options)
    except (ValueError, OSError) as error:
        return fail(str(error), ExitCode.BAD_INPUT)
    try:
        result = dump()
    except RestoreError as error:  # a checkpoint that does not restore into its graph
        return fail(str(error), ExitCode.BAD_INPUT)
    except Exception as error:  # RunFailedError, and TensorFlow's own types for graphs it cannot import or run
        return fail(f"the run failed: {error}", ExitCode.MODEL_RUN_FAILED)
    result.notes[:0] = notes
    _print_result(Console(), result)
    return 0


def _options(args: argparse.Namespace) -> TfDumpOptions:
    """The run's options; ValueError for a precision flag that does not apply, OSError for a keep
    file that cannot be read."""
    from opdiff.producers import TfDumpOptions

    kept = kept_in_fp32(args)
    if args.dtype == "fp16" and args.train_op is not None:
        raise ValueError("--dtype fp16 runs a frozen graph: not with --train-op")
    if not kept.empty and args.dtype != "fp16":
        raise ValueError("--keep-fp32 and --keep-fp32-file keep ops of an fp16 run: give --dtype fp16")
    return TfDumpOptions(args.random_seed, args.threads or 0, fp16=args.dtype == "fp16", keep_fp32=kept)


def _stem(path: str) -> str:
    import os

    return os.path.splitext(os.path.basename(path))[0]


def _load_frozen(args: argparse.Namespace, options: TfDumpOptions) -> Tuple[Callable[[], TfDumpResult], List[str]]:
    """The run of a frozen graph, ready to start, and notes; ValueError/OSError on bad arguments."""
    import os

    from opdiff.producers import dump_tf
    from opdiff.producers.tf.fp16 import check_kept
    from opdiff.producers.tf.graph import read_graph_def

    if os.path.isdir(args.model) or args.model.endswith(".meta"):
        raise ValueError(f"{args.model}: a training model (a SavedModel or a checkpoint's .meta): give --train-op NAME")
    if not os.path.isfile(args.model):
        raise FileNotFoundError(f"{args.model}: no such file")
    graph_def = read_graph_def(args.model)
    check_kept(graph_def, options.keep_fp32)
    feeds, notes = tf_feeds(args, graph_def)
    return lambda: dump_tf(graph_def, args.output, feeds, options, name=_stem(args.model)), notes


def _load_training(args: argparse.Namespace, options: TfDumpOptions) -> Tuple[Callable[[], TfDumpResult], List[str]]:
    """The training step of --train-op, ready to start, and notes; ValueError/OSError on bad arguments
    (a missing checkpoint file, an unknown op, a missing input)."""
    from opdiff.producers import TfTrainOptions, dump_tf_train
    from opdiff.producers.tf.training_model import needed_graph_def, read_training_model, train_op_name

    training = read_training_model(args.model)
    train_op = train_op_name(training, args.train_op)
    feeds, notes = tf_feeds(args, needed_graph_def(training, train_op))
    return lambda: dump_tf_train(training, args.output, feeds, TfTrainOptions(train_op, options)), notes


def tf_feeds(args: argparse.Namespace, graph_def: Any) -> Tuple[Dict[str, Any], List[str]]:
    """The values of `graph_def`'s Placeholders from --input, --random-inputs and --input-shape, and
    notes (precision reads a .pb's inputs here too); ValueError/OSError on bad ones."""
    from opdiff.producers.input_shape import parse_input_shape
    from opdiff.producers.model_inputs import load_inputs, parse_input_args
    from opdiff.producers.tf.graph import input_specs

    files = {name[:-2] if name.endswith(":0") else name: path for name, path in parse_input_args(args.input).items()}
    missing = sorted(f"{name}={path}" for name, path in files.items() if not path.is_file())
    if missing:
        raise FileNotFoundError(f"--input {missing[0]}: no such file")
    specs, notes = input_specs(graph_def, parse_input_shape(args.input_shape), set(files))
    feeds, input_notes = load_inputs(specs, files, args.random_inputs)
    return feeds, notes + input_notes


def _print_result(console: Console, result: TfDumpResult) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    kind = "golden run" if result.fusion_rule is None else "fp16 device run"
    table = Table(title=f"dump-tf: {kind}", show_header=False)
    table.add_row("tensor files", f"{result.files} in {escape(str(result.tensor_folder))}")
    if result.fusion_rule is not None:
        table.add_row("fusion rule", escape(str(result.fusion_rule)))
    table.add_row("ops", str(result.ops))
    table.add_row("not fetched", f"{len(result.not_fetched)} op outputs (listed in manifest.json)")
    table.add_row("random ops", str(len(result.random_ops)))
    table.add_row("session runs", str(result.session_runs))
    table.add_row("model run", escape(str(result.model_path)))
    table.add_row("timestamp", str(result.timestamp))
    table.add_row("seconds", ", ".join(f"{k} {v:.2f}" for k, v in result.seconds.items()))
    console.print(table)
    for note in result.notes[:20]:
        print_note(note, console)
    if len(result.notes) > 20:
        console.print(Text(f"... {len(result.notes) - 20} more notes in manifest.json", style="yellow"), soft_wrap=True)

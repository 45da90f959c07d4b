"""`opdiff dump-onnx MODEL.onnx -o DIR`: golden .npy files, or device-style dump files with a fusion
rule, from an ONNX Runtime run on the CPU (needs ``pip install "opdiff[onnx]"``).

Golden (default: no fusion, fp32): DIR/golden/{op}.{output index}.{timestamp}.npy, model inputs as
the output 0 of a Data op named after the input. Device (--fusion on and/or --dtype fp16):
DIR/dump/{op_type}.{node}.{task}.{stream}.{timestamp} in the Ascend dump format and
DIR/fusion_rule.json (atc --mode=1 shaped). MODEL may be ``light:NAME`` for a light network shipped
with the onnx package (resnet50, squeezenet, ...).
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import TYPE_CHECKING, Any, Dict, List, Tuple

from opdiff.commands.args.model_inputs import add_model_inputs
from opdiff.commands.args.onnx_run import (
    add_dtype,
    add_keep_fp32,
    add_mixlist,
    add_qdq,
    add_skip_file,
    kept_in_fp32,
    mixlists_of,
    skipped_in_int8,
)
from opdiff.commands.args.output import add_output
from opdiff.commands.args.threads import add_threads
from opdiff.commands.errors import command_failure, print_note
from opdiff.commands.exit_codes import ExitCode

if TYPE_CHECKING:
    from rich.console import Console

    from opdiff.producers import DumpResult



def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("dump-onnx", help="golden or device-style dumps of an ONNX model run with ONNX Runtime",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", metavar="MODEL", help="an .onnx file, or light:NAME for a light model of the onnx package")
    add_output(parser, "the dumps, the model and the run record", required=True, short_o=True)
    add_model_inputs(parser, "input", random_note=" (dynamic dims become 1)")
    parser.add_argument("--fusion", choices=("off", "on"), default="off", help="run ONNX Runtime's optimised graph (default off)")
    parser.add_argument("--opt-level", choices=("basic", "extended", "all"), default="extended",
                        help="optimisation level for --fusion on (default extended; 'all' adds NCHWc ops whose tensors map to no golden)")
    add_dtype(parser, choices=("fp32", "fp16"), default="fp32",
              help="run an fp16 copy of the model, every op's output rounded to fp16 (default fp32)")
    parser.add_argument("--kind", choices=("auto", "golden", "device"), default="auto",
                        help="what to write (default: golden for --fusion off --dtype fp32, device otherwise)")
    parser.add_argument("--layout", choices=("ND", "NC1HWC0"), default="ND", help="storage of 4-D float tensors in device dumps (default ND)")
    parser.add_argument("--randomize-weights", type=int, metavar="SEED", help="replace float weights by seeded random ones first")
    add_qdq(parser, help="run a QDQ int8 copy (ONNX Runtime static quantization, calibrated on BATCHES seeded random feeds); "
            "its fusion rule maps to the float model's golden run")
    add_skip_file(parser)
    add_keep_fp32(parser)
    add_mixlist(parser)
    parser.add_argument("--fault", action="append", default=[], metavar="NODE[=SCALE]",
                        help="scale a quarter of NODE's weight channels (default x1.5): a known culprit (repeatable: several faults)")
    add_threads(parser, "ONNX Runtime intra-op threads", default="its own choice")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from opdiff.producers import MissingOnnxError, require_onnx

    fail = command_failure("dump-onnx")
    try:
        require_onnx()
    except MissingOnnxError as error:
        return fail(str(error), ExitCode.BAD_INPUT)
    try:
        model, name, feeds, notes = load_model_and_inputs(args)
    except (ValueError, FileNotFoundError, OSError) as error:
        return fail(str(error), ExitCode.BAD_INPUT)
    from opdiff.producers import (
        DeviceLayout,
        DumpOptions,
        Optimization,
        OutputKind,
        Precision,
        dump_onnx,
    )
    from opdiff.producers.onnx.fault_injection import parse_fault

    try:
        faults = tuple(parse_fault(text) for text in args.fault)
        kept, skipped, mixlists = kept_in_fp32(args), skipped_in_int8(args), mixlists_of(args)
    except (ValueError, OSError) as error:
        return fail(str(error), ExitCode.BAD_INPUT)
    options = DumpOptions(
        fusion=args.fusion == "on",
        optimization=Optimization(args.opt_level),
        precision=Precision(args.dtype),
        kind=OutputKind(args.kind),
        layout=DeviceLayout(args.layout),
        threads=args.threads or 0,
        keep_fp32=kept.types,
        keep_fp32_nodes=kept.names,
        faults=faults,
        mixlists=mixlists,
    )
    if mixlists is not None and args.dtype != "fp16":
        return fail("--mixlist sets which ops drop to fp16: it needs --dtype fp16", ExitCode.BAD_INPUT)
    if skipped and args.qdq is None:
        return fail("--skip-file lists ops left unquantized: it needs --qdq", ExitCode.BAD_INPUT)
    reference = None
    if args.qdq is not None:
        from opdiff.producers.model_inputs import input_specs, random_inputs
        from opdiff.producers.qdq.model import quantize_qdq

        if args.qdq < 1:
            return fail("--qdq needs at least one calibration batch", ExitCode.BAD_INPUT)
        specs = input_specs(model)
        unknown = _unknown_nodes(model, skipped)
        if unknown:
            return fail(f"--skip-file: no op named {unknown!r} in the model", ExitCode.BAD_INPUT)
        try:
            model, reference = quantize_qdq(model, [random_inputs(specs, 1000 + k) for k in range(args.qdq)], skip=skipped), model
        except Exception as error:  # the quantizer raises many types for models it cannot handle
            return fail(f"quantization failed: {error}", ExitCode.MODEL_RUN_FAILED)
        notes.append(f"QDQ int8 copy calibrated on {args.qdq} seeded random batches (seeds 1000...)")
        if options.kind is OutputKind.AUTO:
            options = dataclasses.replace(options, kind=OutputKind.DEVICE)
    try:
        result = dump_onnx(model, args.output, feeds, options, name=name, reference=reference)
    except ValueError as error:  # a bad --fault
        return fail(str(error), ExitCode.BAD_INPUT)
    except Exception as error:  # ONNX Runtime raises its own exception types for bad models and feeds
        return fail(f"the run failed: {error}", ExitCode.MODEL_RUN_FAILED)
    result.notes[:0] = notes
    _print_result(Console(), result)
    return 0


def _unknown_nodes(model: Any, names: Tuple[str, ...]) -> str:
    """The first of `names` that names no node of `model` as prepared (or as given), or ''."""
    from opdiff.producers.onnx.model_prep import prepared_names

    present = set(prepared_names(model.graph)[0]) | {node.name for node in model.graph.node}
    return next((name for name in names if name not in present), "")


def load_model_and_inputs(args: argparse.Namespace) -> Tuple[Any, str, Dict[str, Any], List[str]]:
    """(model, name, feeds, notes) from the arguments; ValueError/OSError on bad ones."""
    import os

    import onnx

    from opdiff.producers.model_inputs import input_specs, load_inputs, parse_input_args
    from opdiff.producers.onnx.light_models import load_light_model
    from opdiff.producers.onnx.random_weights import randomize_weights

    if args.model.startswith("light:"):
        name = args.model[len("light:"):]
        model = load_light_model(name)
    else:
        if not os.path.isfile(args.model):
            raise FileNotFoundError(f"{args.model}: no such file")
        try:
            model = onnx.load(args.model)
        except Exception as error:  # protobuf's DecodeError and onnx's own errors
            raise ValueError(f"{args.model}: not an ONNX model ({error})") from None
        name = os.path.splitext(os.path.basename(args.model))[0]
    notes = []
    seed = getattr(args, "randomize_weights", None)  # precision loads its model here too, without the flag
    if seed is not None:
        randomized = randomize_weights(model, seed)
        model = randomized.model
        notes.append("weights randomized: " + ", ".join(f"{count} {role.value}" for role, count in randomized.counts.items() if count))
    feeds, input_notes = load_inputs(input_specs(model), parse_input_args(args.input), args.random_inputs)
    return model, name, feeds, notes + input_notes


def _print_result(console: Console, result: DumpResult) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    table = Table(title=escape(f"dump-onnx: {result.kind.value} run"), show_header=False)
    table.add_row("tensor files", f"{result.files} in {escape(str(result.tensor_folder))}")
    table.add_row("ops run", str(result.ops))
    if result.fusion_rule is not None:
        table.add_row("fusion rule", escape(str(result.fusion_rule)))
    if result.mapped_share is not None:
        table.add_row("tensors mapped to golden", f"{result.mapped_share:.1%}")
    table.add_row("model run", escape(str(result.model_path)))
    table.add_row("timestamp", str(result.timestamp))
    table.add_row("seconds", ", ".join(f"{k} {v:.2f}" for k, v in result.seconds.items()))
    console.print(table)
    for note in result.notes[:20]:
        print_note(note, console)
    if len(result.notes) > 20:
        console.print(Text(f"... {len(result.notes) - 20} more notes in manifest.json", style="yellow"), soft_wrap=True)

"""`opdiff precision MODEL.onnx -out DIR`: the smallest set of the model's ops to keep in float32
(``--dtype fp16``) or to leave unquantized (``--qdq N``) so that its outputs pass a target, found by
running the model on the CPU with ONNX Runtime (dump-onnx's fp16 and QDQ runs) with candidate sets,
or on a device (--build CMD --run CMD). A frozen TensorFlow graph (MODEL.pb) is searched on a device
only, against dump-tf's float32 run.

Writes DIR/keep_dtype.cfg (ATC's --keep_dtype file; for --qdq, DIR/amct_skip_layers.cfg),
DIR/precision.json (the report), DIR/precision.html (compare's HTML report of the run with nothing
kept, the kept ops marked kept on its graph) and DIR/steps.jsonl (every evaluation; --resume reads it).
Exit 0 with the set found (or when nothing needs keeping), 3 when keeping every candidate still
fails the target (precision is not the cause), 2 on bad input (an op name the model lacks).
docs/what-to-change.md explains the search and the files.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Mapping, Optional, Tuple

from opdiff.commands.args.dump_paths import add_dump_paths, apply_dump_paths
from opdiff.commands.args.model_inputs import add_model_inputs
from opdiff.commands.args.onnx_run import add_dtype, add_keep_fp32, add_mixlist, add_qdq, kept_in_fp32, mixlists_of
from opdiff.commands.args.output import add_output
from opdiff.commands.args.precision_search import add_device_loop, add_search
from opdiff.commands.args.rules import add_fusion_rule
from opdiff.commands.args.threads import add_threads
from opdiff.commands.args.verdict import add_fail_under
from opdiff.commands.errors import command_failure, print_note
from opdiff.commands.exit_codes import ExitCode

if TYPE_CHECKING:
    from rich.console import Console

    from opdiff.precision.device import DeviceCommands
    from opdiff.precision.evaluate import Mode
    from opdiff.precision.run import PrecisionFinding, PrecisionOptions


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("precision", help="the smallest set of ops to keep in fp32 (or unquantized) for a target",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", metavar="MODEL", help="an .onnx file, light:NAME for a light model of the onnx package, "
                        "or a frozen TensorFlow graph (.pb: with --build and --run only)")
    add_output(parser, "keep_dtype.cfg, the report and the step log", required=True)
    add_model_inputs(parser, "model input", random_note=" (dynamic dims become 1)",
                     input_shape="a .pb's Placeholders: sizes of unknown dims (default: unknown dims become 1)")
    add_dtype(parser, choices=("fp16",), default="fp16", help="the device's precision for the ops not kept (default fp16)")
    add_qdq(parser, help="search the ops to leave unquantized in a QDQ int8 copy calibrated on BATCHES seeded random feeds")
    add_keep_fp32(parser)
    add_mixlist(parser)
    add_fail_under(parser, "the target: every model output passes these limits (repeatable, as compare takes them; "
                   "default: compare's default verdict at every model output)")
    add_search(parser)
    add_dump_paths(parser, required=False)
    add_fusion_rule(parser)
    add_device_loop(parser)
    add_threads(parser, "ONNX Runtime intra-op threads", default="its own choice")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from opdiff.precision.device import CommandFailed
    from opdiff.precision.files import write_outputs
    from opdiff.precision.search import Outcome
    from opdiff.producers import MissingOnnxError, MissingTensorFlowError
    from opdiff.producers.tf.fetch import RunFailedError

    fail = command_failure("precision")
    try:
        ascend_types = _ascend_types(args)
        find = _find_tf if is_tf_model(args.model) else _find_onnx
        finding, mode = find(args, ascend_types or {})
    except CommandFailed as error:
        return fail(str(error), ExitCode.BAD_INPUT)
    except (MissingOnnxError, MissingTensorFlowError) as error:
        return fail(str(error), ExitCode.BAD_INPUT)
    except RunFailedError as error:  # TensorFlow cannot run the graph with these inputs
        return fail(f"the float32 run failed: {error}", ExitCode.MODEL_RUN_FAILED)
    except (ValueError, FileNotFoundError, OSError) as error:
        return fail(str(error), ExitCode.BAD_INPUT)
    try:
        write_outputs(finding, args.output, mode, ascend_types)
    except (ValueError, OSError) as error:
        return fail(str(error), ExitCode.BAD_INPUT)
    console = Console()
    _print_finding(console, finding, mode)
    if finding.result.outcome is Outcome.NOT_REACHABLE:
        return ExitCode.THRESHOLDS
    return ExitCode.OK


def is_tf_model(model: str) -> bool:
    """Whether MODEL names a frozen TensorFlow graph (a .pb file) rather than an ONNX model."""
    return model.endswith(".pb")


def _find_onnx(args: argparse.Namespace, ascend_types: Mapping[str, str]) -> Tuple[PrecisionFinding, Mode]:
    """The search for an ONNX model: on the CPU, or through the device loop."""
    from opdiff.commands.dump_onnx import load_model_and_inputs
    from opdiff.precision.evaluate import Mode
    from opdiff.precision.run import find_what_to_keep
    from opdiff.precision.target import Target
    from opdiff.producers import require_onnx

    if args.input_shape:
        raise ValueError("--input-shape sizes a TensorFlow .pb's Placeholders: an ONNX model's dynamic dims become 1")
    require_onnx()
    model, _, feeds, _ = load_model_and_inputs(args)
    mode = Mode.INT8 if args.qdq is not None else Mode.FP16
    options = _options(args, mode, ascend_types)
    target = Target.parse(args.fail_under, "int8" if mode is Mode.INT8 else "float16")
    return find_what_to_keep(model, feeds, target, args.output, options, resume=args.resume), mode


def _find_tf(args: argparse.Namespace, ascend_types: Mapping[str, str]) -> Tuple[PrecisionFinding, Mode]:
    """The search for a frozen TensorFlow graph: through the device loop only; ValueError naming
    the file without one."""
    from opdiff.commands.dump_tf import tf_feeds
    from opdiff.precision.evaluate import Mode
    from opdiff.precision.target import Target
    from opdiff.precision.tf_model import find_what_to_keep_tf
    from opdiff.producers import require_tensorflow
    from opdiff.producers.tf.graph import read_graph_def

    if args.qdq is not None:
        raise ValueError(f"{args.model}: --qdq searches an ONNX model's QDQ int8 copy: there is none of a TensorFlow .pb")
    if args.mixlist:
        raise ValueError(f"{args.model}: --mixlist runs ATC's mixed precision in the CPU evaluations of an ONNX model; a "
                         "TensorFlow .pb is evaluated on the device, whose build applies its lists itself")
    if args.build is None and args.run_command is None:
        raise ValueError(f"{args.model}: a TensorFlow .pb is searched only through the device loop: give --build CMD and "
                         "--run CMD (opdiff evaluates a TensorFlow model's candidate sets on a device only; dump-tf --dtype "
                         "fp16 can stand in for one: docs/what-to-change.md)")
    require_tensorflow()
    if not Path(args.model).is_file():
        raise FileNotFoundError(f"{args.model}: no such file")
    graph_def = read_graph_def(args.model)
    feeds, notes = tf_feeds(args, graph_def)
    options = _options(args, Mode.FP16, ascend_types)
    finding = find_what_to_keep_tf(graph_def, feeds, Target.parse(args.fail_under), args.output, options, resume=args.resume)
    finding.notes[:0] = notes
    return finding, Mode.FP16


def _options(args: argparse.Namespace, mode: Mode, ascend_types: Mapping[str, str]) -> PrecisionOptions:
    """The search's options from the arguments (`ascend_types`: each op's Ascend type, from -f);
    ValueError/OSError on bad ones."""
    from opdiff.precision.candidates import read_local_errors
    from opdiff.precision.run import PrecisionOptions
    from opdiff.precision.search import SearchMode

    kept = kept_in_fp32(args)
    local = read_local_errors(Path(args.isolation)) if args.isolation else _comparison_ranking(args)
    return PrecisionOptions(mode, SearchMode(args.mode), kept.types, kept.names, args.qdq or 2, args.threads or 0,
                            local_errors=local, device=_device_commands(args), mixlists=mixlists_of(args),
                            ascend_types=ascend_types)


def _comparison_ranking(args: argparse.Namespace) -> Optional[Dict[str, float]]:
    """Each op's error growth in the comparison -m/-g (-f) give, or None without them; ValueError
    when one side is missing."""
    if args.my_dump_path is None and args.golden_dump_path is None:
        return None
    if args.my_dump_path is None or args.golden_dump_path is None:
        raise ValueError("a comparison to rank by needs both -m and -g")
    from opdiff.engine.comparison import compare
    from opdiff.engine.options import CompareOptions
    from opdiff.precision.candidates import comparison_errors
    from opdiff.results.tensor_report import Report

    # -m/-g's reading flags (--step, --all, -ffts) as compare reads them
    options = apply_dump_paths(args, CompareOptions(fusion_rule=args.fusion_rule_file))
    result = compare(args.my_dump_path, args.golden_dump_path, options)
    if not isinstance(result, Report):
        raise ValueError("-m/-g hold statistics dumps: ranking needs a tensor comparison")
    return comparison_errors(result)


def _ascend_types(args: argparse.Namespace) -> Optional[Dict[str, str]]:
    """Each original op's Ascend IR type, from the rule -f gives (None without one)."""
    if args.fusion_rule_file is None:
        return None
    from opdiff.graph import read_graph

    types: Dict[str, str] = {}
    for op in read_graph(args.fusion_rule_file).ops:
        if op.type in ("Data", "Const", "Cast"):
            continue
        for name in op.original_names:
            if name:
                types.setdefault(name, op.type)
    return types


def _device_commands(args: argparse.Namespace) -> Optional[DeviceCommands]:
    """The device loop's commands, or None for evaluations on the CPU; ValueError when one of
    --build and --run comes without the other."""
    from opdiff.precision.device import DeviceCommands

    if args.build is None and args.run_command is None:
        return None
    if args.build is None or args.run_command is None:
        raise ValueError("a device loop needs both --build and --run")
    if args.command_timeout <= 0:
        raise ValueError("--command-timeout wants a positive number of seconds")
    return DeviceCommands(args.build, args.run_command, args.command_timeout)


def _print_finding(console: Console, finding: PrecisionFinding, mode: Mode) -> None:
    from rich.markup import escape
    from rich.table import Table

    from opdiff.precision.search import Outcome

    for note in finding.notes:
        print_note(note, console)
    outcome = finding.result.outcome
    steps = len(finding.steps.order)
    if outcome is Outcome.NOTHING_NEEDED:
        console.print(f"Nothing needs keeping: the outputs pass {escape(finding.target.text())} already.", soft_wrap=True)
        return
    if outcome is Outcome.NOT_REACHABLE:
        console.print(f"No set reaches the target ({escape(finding.target.text())}): keeping all {finding.result.candidates} "
                      f"candidates still fails, so precision is not the cause; run compare with --isolate to see which op "
                      f"fails on its own inputs. Tried {steps} sets (steps.jsonl).", soft_wrap=True)
        return
    what = mode.kept_as.value
    table = Table(title=escape(f"precision: {len(finding.result.kept)} of {finding.result.candidates} candidate ops {what}"))
    for column in ("op", "type", "output", "cosine with / without", "NormRatioError with / without"):
        table.add_column(column)
    types = {c.name: c.op_type for c in finding.ranked}
    kept = list(finding.result.kept)
    with_all = finding.evaluation(kept)
    for name in kept:
        without = finding.evaluation([k for k in kept if k != name])
        if with_all is None or without is None:
            continue
        for a, b in zip(with_all.checks, without.checks):
            table.add_row(escape(name), types.get(name, ""), escape(a.name), f"{a.cosine:.6f} / {b.cosine:.6f}",
                          f"{a.norm_ratio_error:.4g} / {b.norm_ratio_error:.4g}")
    console.print(table)
    total = sum(finding.multiply_adds.values())
    share = f", {sum(finding.multiply_adds.get(k, 0) for k in kept) / total:.1%} of its multiply-adds" if total else ""
    console.print(f"Cost: {len(kept)} of the model's {finding.ops} ops{share}. {steps} evaluations, {finding.seconds:.2f} s "
                  f"({finding.evaluation_seconds:.2f} s evaluating). Written: the keep file, precision.json"
                  f"{' and precision.html' if finding.view is not None else ''} in the output folder.",
                  soft_wrap=True)

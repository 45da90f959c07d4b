"""`find_what_to_keep`: the whole search on the CPU, from a model and its inputs to the ops to keep,
with the step log in the output folder. The CLI `opdiff precision` is a thin layer over it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from opdiff.conventions.mixlist import MixLists
from opdiff.precision.candidates import Candidate, error_growth, float_ops, multiply_adds, ranked_by_isolation
from opdiff.precision.device import DeviceCommands, DeviceEvaluator
from opdiff.precision.evaluate import CpuEvaluator, Evaluation, Mode
from opdiff.precision.html import GraphRows, graph_rows
from opdiff.precision.own_errors import own_fp16_errors
from opdiff.precision.search import Outcome, SearchMode, SearchResult, search
from opdiff.precision.steps import STEPS_FILE, Steps
from opdiff.precision.target import Target
from opdiff.producers.onnx.support import OnnxModel


@dataclass(frozen=True)
class PrecisionOptions:
    """How to search: the device's precision, the search mode, the ops kept in every run (types and
    names: never candidates), the QDQ calibration batches and ONNX Runtime's threads."""

    mode: Mode = Mode.FP16
    search: SearchMode = SearchMode.BISECT
    keep_types: Tuple[str, ...] = ()
    keep_names: Tuple[str, ...] = ()
    calibration_batches: int = 2
    threads: int = 0
    local_errors: Optional[Mapping[str, float]] = None  # an isolation CSV's local errors by op
    device: Optional[DeviceCommands] = None  # evaluate on a device through --build and --run
    mixlists: Optional[MixLists] = None  # ATC's mixed precision (--mixlist) instead of fp16 everywhere
    ascend_types: Mapping[str, str] = field(default_factory=dict)  # op name -> Ascend IR type, from a rule (-f)


@dataclass
class PrecisionFinding:
    """What a search found, and what it cost."""

    result: SearchResult
    ranked: List[Candidate]
    steps: Steps
    target: Target
    ops: int  # ops in the model
    seconds: float = 0.0
    evaluation_seconds: float = 0.0
    reference_seconds: float = 0.0  # the model runs that are no evaluation (the float32 run, the ranking's)
    multiply_adds: Dict[str, int] = field(default_factory=dict)  # per op, where known (the model's Conv, MatMul, Gemm)
    view: Optional[GraphRows] = None  # the graph and each candidate's error with nothing kept (the HTML report)
    notes: List[str] = field(default_factory=list)

    def evaluation(self, kept: Sequence[str]) -> Optional[Evaluation]:
        return self.steps.done.get(frozenset(kept))


def find_what_to_keep(model: OnnxModel, feeds: Mapping[str, np.ndarray], target: Target, out: Path,
                      options: PrecisionOptions = PrecisionOptions(), *, resume: bool = False,
                      on_step: Optional[Callable[[int, Evaluation], None]] = None) -> PrecisionFinding:
    """The 1-minimal set of `model`'s ops to keep so that its outputs pass `target`; the step log
    goes to ``out/steps.jsonl`` (read back first with `resume`). ValueError naming a kept op the
    model lacks. tests/precision/test_precision_search.py runs it on small fragile models.
    """
    from opdiff.producers.onnx.model_prep import prepare_model

    started = time.perf_counter()
    notes: List[str] = []
    whole = prepare_model(model)
    prepared, input_names = whole.model, whole.input_names
    _check_names(prepared, options.keep_names)
    if options.mixlists is not None and options.mode is Mode.INT8:
        raise ValueError("--mixlist sets which ops drop to fp16: it does not go with --qdq")
    evaluator = CpuEvaluator(prepared, feeds, target, options.mode, options.keep_types, _calibration(prepared, options),
                             options.threads, options.mixlists, options.ascend_types, frozenset(options.keep_names))
    steps = open_steps(_evaluate_with(evaluator, options, out), out, resume, on_step)
    if steps.passes(frozenset()):  # before ranking: a model that passes as it is costs one evaluation
        candidates = _candidates(prepared, evaluator, options)
        result = SearchResult(Outcome.NOTHING_NEEDED, (), len(candidates))
        ranked = candidates
        macs: Dict[str, int] = {}
        view: Optional[GraphRows] = None
    else:
        ranked, macs, view = _ranked(prepared, input_names, evaluator, options, notes)
        evaluator.tensors = {}  # the search checks the outputs only: a whole float32 run less to hold
        result = search([c.name for c in ranked], steps, options.search)
    finding = PrecisionFinding(result, ranked, steps, target, len(prepared.graph.node), multiply_adds=macs, view=view,
                               notes=notes)
    finding.seconds = time.perf_counter() - started
    finding.evaluation_seconds = sum(e.seconds for e in steps.order)
    finding.reference_seconds = evaluator.reference_seconds
    return finding


def open_steps(evaluate: Callable[[frozenset[str]], Evaluation], out: Path, resume: bool,
               on_step: Optional[Callable[[int, Evaluation], None]] = None) -> Steps:
    """The step log of a search into `out` (created): ``out/steps.jsonl`` read back with `resume`,
    else started afresh; a device's step folders numbered on from the last step read."""
    out.mkdir(parents=True, exist_ok=True)
    log = out / STEPS_FILE
    steps = Steps(evaluate, log, on_step=on_step)
    if resume:
        steps.resume(log)
    elif log.exists():
        log.unlink()
    _continue_numbering(steps)
    return steps


def _evaluate_with(evaluator: CpuEvaluator, options: PrecisionOptions, out: Path) -> Callable[[frozenset[str]], Evaluation]:
    """How a candidate set is evaluated: on the CPU (the evaluator adds the ops kept in every run),
    or by the device commands (whose keep files list those ops too)."""
    if options.device is not None:
        outputs = {value.name: _writer(evaluator.model, value.name) for value in evaluator.model.graph.output}
        device = DeviceEvaluator(options.device, out, evaluator.target, evaluator.golden, outputs, options.keep_types,
                                 options.keep_names)
        return device.evaluate
    return evaluator.evaluate


def _writer(model: OnnxModel, tensor: str) -> Tuple[str, int]:
    for node in model.graph.node:
        if tensor in node.output:
            return node.name, list(node.output).index(tensor)
    raise ValueError(f"no op writes the model output {tensor!r}")


def _continue_numbering(steps: Steps) -> None:
    """After a resume, a device's step folders go on from the last step logged."""
    evaluate = steps.evaluate
    owner = getattr(evaluate, "__self__", None)
    if isinstance(owner, DeviceEvaluator):
        owner.steps = len(steps.order)


def _check_names(model: OnnxModel, names: Sequence[str]) -> None:
    present = {node.name for node in model.graph.node}
    for name in names:
        if name not in present:
            raise ValueError(f"no op named {name!r} in the model (a kept op of the keep file)")


def _calibration(model: OnnxModel, options: PrecisionOptions) -> List[Dict[str, np.ndarray]]:
    if options.mode is not Mode.INT8:
        return []
    from opdiff.producers.model_inputs import input_specs, random_inputs

    specs = input_specs(model)
    return [random_inputs(specs, 1000 + k) for k in range(options.calibration_batches)]  # as dump-onnx --qdq


def _candidates(model: OnnxModel, evaluator: CpuEvaluator, options: PrecisionOptions) -> List[Candidate]:
    """The ops that may be kept, in graph order: those with a float output (for int8, of the
    quantized types), but those in fp32 with nothing kept (kept in every run; under mixed
    precision, the black-list ops and the gray ones following them)."""
    from opdiff.producers.qdq.model import QUANTIZED_OP_TYPES

    op_types = QUANTIZED_OP_TYPES if options.mode is Mode.INT8 else None
    excluded = evaluator.fp32_nodes(frozenset())
    return [c for c in float_ops(model, evaluator.types, op_types) if c.name not in excluded and c.op_type not in options.keep_types]


def _ranked(model: OnnxModel, input_names: Mapping[str, str], evaluator: CpuEvaluator, options: PrecisionOptions,
            notes: List[str]) -> Tuple[List[Candidate], Dict[str, int], GraphRows]:
    """The candidates (not kept in every run), ranked by the given local errors (an isolation
    CSV's, or a comparison's error growth), else in fp16 by each op's own error in one cut run
    (own_errors.py), else (int8) by their error growth in one run with nothing kept; each op's
    multiply-adds (the cost); and the graph with each candidate's error (the HTML report)."""
    candidates = _candidates(model, evaluator, options)
    golden, mine = evaluator.tensors, evaluator.take_nothing_kept()
    macs = multiply_adds(model, golden)
    view = graph_rows(model, input_names, candidates, mine, golden, "int8" if options.mode is Mode.INT8 else "float16")
    if options.local_errors is not None:
        return ranked_by_isolation(candidates, options.local_errors), macs, view
    if options.mode is Mode.INT8:
        return error_growth(model, mine, golden, candidates), macs, view
    del mine  # before the cut run: the peak holds two runs' tensors, not three
    try:
        own = own_fp16_errors(evaluator)
    except Exception as error:  # ONNX Runtime raises its own types for a cut graph it cannot run
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        notes.append(f"ranked by error growth: ONNX Runtime could not run the cut model that measures each op's own error ({reason})")
        return error_growth(model, evaluator.take_nothing_kept(), golden, candidates), macs, view
    return ranked_by_isolation(candidates, own), macs, view

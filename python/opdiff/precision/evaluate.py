"""Evaluations on the CPU: the model run in fp16 (or int8 QDQ) everywhere but a set of kept ops,
its outputs checked against the float32 run's.

The fp16 run is dump-onnx's own (:func:`opdiff.producers.onnx.fp16_model.convert_to_fp16` with the
kept op names, run through :meth:`Fp16Model.run_model`, which rounds every op's output to fp16);
the int8 run is dump-onnx's ``--qdq N`` copy with the kept ops left unquantized. Only the model
outputs are fetched: an evaluation exposes no intermediate tensor.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple

import numpy as np

from opdiff.conventions.mixlist import MixLists
from opdiff.precision.target import OutputCheck, Target
from opdiff.producers.onnx.support import OnnxModel
from opdiff.results.findings import FindingKind


class Mode(str, Enum):
    """What the device computes the ops that are not kept in: fp16, or int8 (QDQ)."""

    FP16 = "fp16"
    INT8 = "int8"

    @property
    def kept_as(self) -> FindingKind:
        """What a kept op is, in the console's words and as the HTML page marks it: kept in fp32,
        or left unquantized."""
        return FindingKind.LEFT_UNQUANTIZED if self is Mode.INT8 else FindingKind.KEPT_IN_FP32


@dataclass(frozen=True)
class Evaluation:
    """One evaluated set: the ops kept, each output's check, and the seconds it took."""

    kept: FrozenSet[str]
    checks: Tuple[OutputCheck, ...]
    seconds: float

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)


@dataclass
class CpuEvaluator:
    """Runs `model` (prepared: dump-safe names) on `feeds` with kept sets, against its fp32 outputs.

    `keep_types` and `keep_names` are the op types and names kept in every run (``--keep-fp32``,
    ``--keep-fp32-file``: added to every set evaluated); `calibration` the QDQ copy's calibration
    feeds (int8 only); `mixlists` ATC's mixed precision instead of fp16 everywhere, with
    `ascend_types` (node name -> Ascend IR type, from a rule) naming the ops' types for its lists.

    The float32 run exposes every tensor (`tensors`: the ranking and the HTML view read them), and
    so does the first evaluation of the empty set (`nothing_kept`): one run each serves all.
    """

    model: OnnxModel
    feeds: Mapping[str, np.ndarray]
    target: Target
    mode: Mode = Mode.FP16
    keep_types: Tuple[str, ...] = ()
    calibration: Sequence[Mapping[str, np.ndarray]] = ()
    threads: int = 0
    mixlists: Optional[MixLists] = None
    ascend_types: Mapping[str, str] = field(default_factory=dict)
    keep_names: FrozenSet[str] = frozenset()
    tensors: Dict[str, np.ndarray] = field(default_factory=dict)  # every tensor of the float32 run
    golden: Dict[str, np.ndarray] = field(default_factory=dict)  # its model outputs
    nothing_kept: Optional[Dict[str, np.ndarray]] = None  # every tensor of the run with nothing kept, once made
    types: Dict[str, str] = field(default_factory=dict)  # every tensor's element type, from the float32 run
    reference_seconds: float = 0.0  # the model runs that are no evaluation: the float32 run, the ranking's

    def __post_init__(self) -> None:
        from opdiff.producers.onnx.runner import run_exposing_all

        started = time.perf_counter()
        run = run_exposing_all(self.model, self.feeds, threads=self.threads)
        self.reference_seconds += time.perf_counter() - started
        self.tensors, self.types = run.tensors, run.types
        self.golden = {name: self.tensors[name] for name in self.output_names}

    @property
    def output_names(self) -> List[str]:
        return [value.name for value in self.model.graph.output]

    def evaluate(self, kept: FrozenSet[str]) -> Evaluation:
        """The outputs with the ops `kept` (and `keep_names`) in float32 (or unquantized), checked
        against golden; recorded under `kept`."""
        started = time.perf_counter()
        if not kept and self.nothing_kept is None:
            self.nothing_kept = self._run_nothing_kept()
            outputs = {name: self.nothing_kept[name] for name in self.output_names}
        else:
            outputs = self._run(self.candidate_model(kept))
        return Evaluation(kept, tuple(self.target.check(outputs, self.golden)), time.perf_counter() - started)

    def take_nothing_kept(self) -> Dict[str, np.ndarray]:
        """Every tensor of the run with nothing kept but `keep_names`, no longer held here: the
        caller's to drop (a whole run's tensors). The empty set's evaluation made it; a resumed
        search, which read that evaluation back, makes it here."""
        tensors = self.nothing_kept
        if tensors is None:
            started = time.perf_counter()
            tensors = self._run_nothing_kept()
            self.reference_seconds += time.perf_counter() - started
        self.nothing_kept = None
        return tensors

    def _run_nothing_kept(self) -> Dict[str, np.ndarray]:
        from opdiff.producers.onnx.runner import run_exposing_all

        return run_exposing_all(self.candidate_model(frozenset()), self.feeds, threads=self.threads, only=self.tensors.keys()).tensors

    def candidate_model(self, kept: FrozenSet[str]) -> OnnxModel:
        """The model an evaluation of `kept` (and `keep_names`) runs."""
        kept = kept | self.keep_names
        if self.mode is Mode.INT8:
            from opdiff.producers.qdq.model import quantize_qdq

            return quantize_qdq(self.model, list(self.calibration), skip=sorted(kept))
        from opdiff.producers.onnx.fp16_model import convert_to_fp16

        return convert_to_fp16(self.model, self.keep_types, self.types, keep_nodes=self.fp32_nodes(kept)).run_model()

    def fp32_nodes(self, kept: FrozenSet[str]) -> Set[str]:
        """The nodes an fp16 evaluation of `kept` runs in fp32: `kept` and `keep_names`, and under mixed precision
        the black-list ops and the gray ones that follow an fp32 op (see mixed_precision.py)."""
        kept = kept | self.keep_names
        if self.mixlists is None:
            return set(kept)
        from opdiff.producers.onnx.mixed_precision import fp32_under_mix

        return fp32_under_mix(self.model, self.mixlists, self.types, kept=kept, kept_types=set(self.keep_types),
                              ascend_types=self.ascend_types)

    def _run(self, model: OnnxModel) -> Dict[str, np.ndarray]:
        import onnxruntime as ort

        from opdiff.producers.onnx.runner import Optimization, session_options

        options = session_options(Optimization.OFF, threads=self.threads, memory_arena=False)  # a session per evaluation
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        names = self.output_names
        return dict(zip(names, (np.asarray(v) for v in session.run(names, dict(self.feeds)))))

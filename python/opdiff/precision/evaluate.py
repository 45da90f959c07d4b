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
from typing import Dict, FrozenSet, List, Mapping, Sequence, Tuple

import numpy as np

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

    `keep_types` are op types kept in every run (``--keep-fp32``); `calibration` the QDQ copy's
    calibration feeds (int8 only).
    """

    model: OnnxModel
    feeds: Mapping[str, np.ndarray]
    target: Target
    mode: Mode = Mode.FP16
    keep_types: Tuple[str, ...] = ()
    calibration: Sequence[Mapping[str, np.ndarray]] = ()
    threads: int = 0
    golden: Dict[str, np.ndarray] = field(default_factory=dict)
    types: Dict[str, str] = field(default_factory=dict)  # every tensor's element type, from ONNX Runtime

    def __post_init__(self) -> None:
        from opdiff.producers.onnx.runner import tensor_types

        self.types = tensor_types(self.model)
        self.golden = self._run(self.model)

    @property
    def output_names(self) -> List[str]:
        return [value.name for value in self.model.graph.output]

    def evaluate(self, kept: FrozenSet[str]) -> Evaluation:
        """The outputs with the ops `kept` in float32 (or unquantized), checked against golden."""
        started = time.perf_counter()
        outputs = self._run(self.candidate_model(kept))
        return Evaluation(kept, tuple(self.target.check(outputs, self.golden)), time.perf_counter() - started)

    def candidate_model(self, kept: FrozenSet[str]) -> OnnxModel:
        """The model an evaluation of `kept` runs."""
        if self.mode is Mode.INT8:
            from opdiff.producers.qdq.model import quantize_qdq

            return quantize_qdq(self.model, list(self.calibration), skip=sorted(kept))
        from opdiff.producers.onnx.fp16_model import convert_to_fp16

        return convert_to_fp16(self.model, self.keep_types, self.types, keep_nodes=kept).run_model()

    def _run(self, model: OnnxModel) -> Dict[str, np.ndarray]:
        import onnxruntime as ort

        from opdiff.producers.onnx.runner import Optimization, session_options

        session = ort.InferenceSession(model.SerializeToString(), session_options(Optimization.OFF, threads=self.threads),
                                       providers=["CPUExecutionProvider"])
        names = self.output_names
        return dict(zip(names, (np.asarray(v) for v in session.run(names, dict(self.feeds)))))

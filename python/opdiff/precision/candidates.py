"""The candidates, ranked: the model's ops that write a float output (for int8, the ops the QDQ copy
quantizes), most harmful first.

An op's harm is, in the order of preference: its local error in an isolation CSV that compare
wrote (``--isolation``); its error growth in a comparison of a device run (``-m``, ``-g``, ``-f``);
in fp16, its own error in one cut CPU run (own_errors.py); for int8, its error growth in one CPU
run of the QDQ copy against the float32 run: the relative L2 error of its output less the largest
of its inputs' (an op that only passes on an error it received gains nothing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Mapping, Optional, Sequence

import numpy as np

from opdiff.producers.onnx.support import OnnxModel

if TYPE_CHECKING:
    from opdiff.results.tensor_report import Report


@dataclass(frozen=True)
class Candidate:
    """An op that may be kept, and the harm that ranks it (higher: tried first)."""

    name: str
    op_type: str
    harm: float
    position: int  # in graph order: ties keep it


def float_ops(model: OnnxModel, types: Mapping[str, str], op_types: Optional[Sequence[str]] = None) -> List[Candidate]:
    """The nodes of `model` with a float output (of `op_types` only, when given), unranked."""
    found = []
    for position, node in enumerate(model.graph.node):
        if op_types is not None and node.op_type not in op_types:
            continue
        if any(types.get(t) == "tensor(float)" for t in node.output if t):
            found.append(Candidate(node.name, node.op_type, 0.0, position))
    return found


def relative_error(mine: Optional[np.ndarray], golden: Optional[np.ndarray]) -> float:
    """||mine - golden|| / ||golden|| (inf where `mine` holds a non-finite value `golden` does not;
    0 when a side is missing or the shapes differ).

    >>> relative_error(np.array([1.0, 2.0]), np.array([1.0, 1.0])) > 0.7, relative_error(np.array([np.inf]), np.array([1.0]))
    (True, inf)
    """
    if mine is None or golden is None or mine.shape != golden.shape or mine.dtype.kind != "f" or golden.dtype.kind != "f":
        return 0.0
    a, b = np.asarray(mine, np.float64).ravel(), np.asarray(golden, np.float64).ravel()
    finite = np.isfinite(b)
    if not np.array_equal(np.isfinite(a), finite):
        return math.inf
    if not finite.all():  # copies only where a value is not finite: the ranking runs this on every tensor
        a, b = a[finite], b[finite]
    difference = a - b
    # einsum, not BLAS: a BLAS call waits for its threads while ONNX Runtime's spin on the same cores
    norm, distance = math.sqrt(float(np.einsum("i,i->", b, b))), math.sqrt(float(np.einsum("i,i->", difference, difference)))
    return distance / norm if norm > 0 else distance


def error_growth(model: OnnxModel, mine: Mapping[str, np.ndarray], golden: Mapping[str, np.ndarray],
                 candidates: Sequence[Candidate]) -> List[Candidate]:
    """`candidates` ranked by error growth (see the module notes), most first, ties in graph order."""
    nodes = {node.name: node for node in model.graph.node}
    errors: Dict[str, float] = {}

    def error_of(tensor: str) -> float:
        if tensor not in errors:
            errors[tensor] = relative_error(mine.get(tensor), golden.get(tensor))
        return errors[tensor]

    ranked = []
    for candidate in candidates:
        node = nodes[candidate.name]
        out = max((error_of(t) for t in node.output if t), default=0.0)
        received = max((error_of(t) for t in node.input if t), default=0.0)
        growth = 0.0 if math.isinf(received) and math.isinf(out) else out - received
        ranked.append(Candidate(candidate.name, candidate.op_type, growth, candidate.position))
    return sorted(ranked, key=lambda c: (-c.harm, c.position))


def ranked_by_isolation(candidates: Sequence[Candidate], local_errors: Mapping[str, float]) -> List[Candidate]:
    """`candidates` ranked by the local error `local_errors` give their op (none: 0), most first,
    ties in graph order."""
    ranked = [Candidate(c.name, c.op_type, local_errors.get(c.name, 0.0), c.position) for c in candidates]
    return sorted(ranked, key=lambda c: (-c.harm, c.position))


def read_local_errors(path: Path) -> Dict[str, float]:
    """Each original op's local error in an isolation CSV that ``compare --isolate`` wrote: the
    larger of 1 - LocalCosineSimilarity and LocalNormRatioError (NaN: inf), the largest over the
    rows naming the op; ValueError when the file lacks those columns.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "isolation.csv"
    ...     _ = path.write_text("NPUDump,OriginalOps,LocalCosineSimilarity,LocalNormRatioError\\nf,a;b,0.9,0.01\\n")
    ...     sorted(read_local_errors(path).items())
    [('a', 0.09999999999999998), ('b', 0.09999999999999998)]
    """
    import csv

    errors: Dict[str, float] = {}
    with path.open(newline="", encoding="utf-8") as stream:
        reader = csv.DictReader(stream)
        missing = {"OriginalOps", "LocalCosineSimilarity", "LocalNormRatioError"} - set(reader.fieldnames or ())
        if missing:
            raise ValueError(f"{path}: not an isolation CSV (no column {', '.join(sorted(missing))})")
        for row in reader:
            harm = max(_harm(1 - _float(row["LocalCosineSimilarity"])), _harm(_float(row["LocalNormRatioError"])))
            for op in filter(None, row["OriginalOps"].split(";")):
                errors[op] = max(errors.get(op, 0.0), harm)
    return errors


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def _harm(value: float) -> float:
    return math.inf if math.isnan(value) else value


def multiply_adds(model: OnnxModel, tensors: Mapping[str, np.ndarray]) -> Dict[str, int]:
    """The multiply-adds of each Conv, ConvTranspose, MatMul and Gemm of `model`, from the shapes of
    a run's `tensors` and the weights: output elements times the length of each dot product."""
    dims = {init.name: tuple(init.dims) for init in model.graph.initializer}
    dims.update({name: tuple(value.shape) for name, value in tensors.items()})
    counts: Dict[str, int] = {}
    for node in model.graph.node:
        out = dims.get(node.output[0]) if node.output else None
        if out is None or len(node.input) < 2:
            continue
        a, b = dims.get(node.input[0]), dims.get(node.input[1])
        if node.op_type in ("Conv", "ConvTranspose") and b is not None and len(b) > 1:
            counts[node.name] = int(np.prod(out)) * int(np.prod(b[1:]))
        elif node.op_type in ("MatMul", "Gemm") and a:
            trans_a = any(attr.name == "transA" and attr.i for attr in node.attribute)
            counts[node.name] = int(np.prod(out)) * int(a[-2] if trans_a and len(a) > 1 else a[-1])
    return counts


def comparison_errors(report: Report) -> Dict[str, float]:
    """Each original op's error growth in a comparison of a device run: the error of the device op
    standing for it (the larger of 1 - cosine and NormRatioError over its output rows; NaN: inf)
    less the largest of its producers' in the rule (the report's graph), as each op adds it."""
    error: Dict[str, float] = {}
    originals: Dict[str, List[str]] = {}
    for row in report.rows:
        if row.metrics is None:
            continue
        op = row.tensor.op
        m = row.metrics
        error[op] = max(error.get(op, 0.0), _harm(1 - m.cosine_similarity), _harm(m.norm_ratio_error))
        originals.setdefault(op, [part for part in row.ground_truth.split(",") if part and part != "*"])
    producers: Dict[str, List[str]] = {}
    if report.graph is not None:
        for fused in report.graph.ops:
            producers[fused.name] = [ref.producer for ref in fused.inputs if ref.producer]
    growth: Dict[str, float] = {}
    for op, value in error.items():
        received = max((error.get(p, 0.0) for p in producers.get(op, [])), default=0.0)
        gained = 0.0 if math.isinf(value) and math.isinf(received) else value - received
        for name in originals.get(op, []):
            growth[name] = max(growth.get(name, -math.inf), gained)
    return growth

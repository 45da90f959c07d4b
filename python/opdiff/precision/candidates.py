"""The candidates, ranked: the model's ops that write a float output (for int8, the ops the QDQ copy
quantizes), most harmful first.

Without a comparison of the device, each op's harm is its error growth in one CPU run of the
device's precision (nothing kept) against the float32 run: the relative L2 error of its output
less the largest of its inputs' (an op that only passes on an error it received gains nothing).
An isolation CSV that compare wrote (``--isolation``) gives each op's own, local error instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence

import numpy as np

from opdiff.producers.onnx.support import OnnxModel


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
    a, b = mine.astype(np.float64), golden.astype(np.float64)
    if not np.array_equal(np.isfinite(a), np.isfinite(b)):
        return math.inf
    finite = np.isfinite(b)
    norm = float(np.linalg.norm(b[finite]))
    difference = float(np.linalg.norm((a - b)[finite]))
    return difference / norm if norm > 0 else difference


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
    """`candidates` ranked by the local error an isolation CSV gives their op (none: 0), most first."""
    ranked = [Candidate(c.name, c.op_type, local_errors.get(c.name, 0.0), c.position) for c in candidates]
    return sorted(ranked, key=lambda c: (-c.harm, c.position))

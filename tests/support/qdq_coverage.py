"""How much of a QDQ run a comparison covers, and how close its tensors are: the quantized
scenario's acceptance figures.

A QDQ graph holds the float model's ops (Conv, PRelu, Add, ...) between QuantizeLinear /
DequantizeLinear pairs. Their tensors are the float ops' outputs and their activation inputs; a
weight input (a Const, or a DequantizeLinear of one) has no golden tensor in any run and is not
counted. The count comes from the fusion rule, not from the report's rows: an op that the quant
filter skips has no row at all, and must count as not compared.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence, Tuple

from opdiff.graph import FusionMap, Op
from opdiff.results.rows import CompareRow

QDQ_OP_TYPES = ("QuantizeLinear", "DequantizeLinear")
_NOT_RUN = ("Data", "Const")


@dataclass(frozen=True)
class FloatOpCoverage:
    """The float ops' tensors (``{op}:{input|output}:{k}``) and which of them were compared."""

    tensors: Tuple[str, ...]
    compared: Tuple[str, ...]

    @property
    def share(self) -> float:
        return len(self.compared) / len(self.tensors) if self.tensors else 1.0

    @property
    def missed(self) -> Tuple[str, ...]:
        done = set(self.compared)
        return tuple(t for t in self.tensors if t not in done)


@dataclass(frozen=True)
class Spread:
    """Minimum, median and maximum of some figures (NaN when there are none)."""

    minimum: float
    median: float
    maximum: float

    @staticmethod
    def of(values: Sequence[float]) -> Spread:
        finite = [v for v in values if math.isfinite(v)]
        if not finite:
            return Spread(math.nan, math.nan, math.nan)
        return Spread(min(finite), statistics.median(finite), max(finite))


@dataclass(frozen=True)
class Agreement:
    """Per compared tensor: CosineSimilarity and the norm ratio ||x|| / ||y|| (my / golden)."""

    tensors: int
    cosine: Spread
    norm_ratio: Spread


def is_weight(fusion_map: FusionMap, op: Op) -> bool:
    """A Const, or a DequantizeLinear (or Cast) of one: values no golden run writes."""
    if op.type == "Const":
        return True
    if op.type in ("DequantizeLinear", "Cast") and op.inputs:
        source = fusion_map.producer(op.inputs[0])
        return source is not None and is_weight(fusion_map, source)
    return False


def float_op_tensors(fusion_map: FusionMap) -> List[str]:
    """The tensor labels of every float op of the rule: outputs, and inputs that are not weights."""
    labels: List[str] = []
    for op in fusion_map.ops:
        if op.type in _NOT_RUN or op.type in QDQ_OP_TYPES:
            continue
        for k, ref in enumerate(op.inputs):
            producer = fusion_map.producer(ref)
            if producer is None or not is_weight(fusion_map, producer):
                labels.append(f"{op.name}:input:{k}")
        labels.extend(f"{op.name}:output:{k}" for k in range(max(1, len(op.output_descs))))
    return labels


def float_op_coverage(fusion_map: FusionMap, rows: Iterable[CompareRow]) -> FloatOpCoverage:
    """Which float-op tensors of `fusion_map` a comparison's `rows` compared.

    >>> from opdiff.graph.grouping import build_fusion_map
    >>> from opdiff.results.rows import TensorId
    >>> from opdiff.graph.provenance import make_op
    >>> fm = build_fusion_map("m", [("g", [make_op("w", "Const"), make_op("conv", "Conv", inputs=["w:0"])])])
    >>> row = CompareRow(index=0, op_type="Conv", npu_dump="conv", ground_truth="conv", tensor=TensorId("conv", "output", 0))
    >>> coverage = float_op_coverage(fm, [row])
    >>> coverage.tensors, coverage.compared, coverage.missed
    (('conv:output:0',), (), ('conv:output:0',))
    """
    compared = {row.tensor_index for row in rows if row.compared}
    tensors = float_op_tensors(fusion_map)
    return FloatOpCoverage(tuple(tensors), tuple(t for t in tensors if t in compared))


def norm_ratio(row: CompareRow) -> Optional[float]:
    """||x|| / ||y|| of a compared row, from each side's mean and (population) std:
    sum of squares = n * (std^2 + mean^2). None when not compared or the golden is all zero."""
    if row.metrics is None or row.metrics.count == 0:
        return None
    x, y = row.metrics.x, row.metrics.y
    golden = y.std ** 2 + y.mean ** 2
    return math.sqrt((x.std ** 2 + x.mean ** 2) / golden) if golden > 0 else None


def agreement(rows: Iterable[CompareRow], labels: Optional[Iterable[str]] = None) -> Agreement:
    """Cosine and norm-ratio spread over the compared `rows` (only those in `labels` when given)."""
    wanted = set(labels) if labels is not None else None
    chosen = [row for row in rows if row.compared and (wanted is None or row.tensor_index in wanted)]
    ratios = [r for r in (norm_ratio(row) for row in chosen) if r is not None]
    cosines = [row.metrics.cosine_similarity for row in chosen if row.metrics is not None]
    return Agreement(len(chosen), Spread.of(cosines), Spread.of(ratios))

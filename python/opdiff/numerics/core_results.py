"""The core's typed results turned into :class:`opdiff.Metrics`, the metric names an ``-alg``
selection means, and the reference's scalar-shape rule. Free of numpy: the comparison engine reads
dumps through the core and never needs it (tests/package/test_start_up.py keeps it so)."""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Optional, Sequence, Tuple, Union

from opdiff.numerics.core import CoreMetrics, CoreSideStats
from opdiff.numerics.schema import ALGORITHMS, SIDE_FIELDS, VALUE_FIELDS
from opdiff.numerics.values import NOTE_BITS, Metrics, Note, SideStats


def is_scalar_shape(shape: Sequence[int]) -> bool:
    """The reference's "scalar" shape type: the dims sum to their count ([], [1], [1, 1], also
    [2, 0]); such a tensor gets cosine 1."""
    return sum(shape) == len(shape)


def resolve_algorithms(algorithms: Optional[Sequence[Union[str, int]]]) -> Tuple[str, ...]:
    """The metric names `algorithms` selects (names or ``-alg`` indices); every one for None."""
    if algorithms is None:
        return ALGORITHMS
    chosen = []
    for item in algorithms:
        if isinstance(item, int) or (isinstance(item, str) and item.isdigit()):
            index = int(item)
            if not 0 <= index < len(ALGORITHMS):
                raise ValueError(f"algorithm index {index} is out of range 0..{len(ALGORITHMS) - 1}")
            chosen.append(ALGORITHMS[index])
        elif item in ALGORITHMS:
            chosen.append(item)
        else:
            raise ValueError(f"unknown algorithm {item!r}; known: {', '.join(ALGORITHMS)}")
    if not chosen:
        raise ValueError("no algorithm selected")
    return tuple(chosen)


def notes_from_bits(bits: int) -> Tuple[Note, ...]:
    """The notes of the core's MetricNote bits, in bit order."""
    return tuple(note for bit, note in enumerate(NOTE_BITS) if bits & (1 << bit)) if bits else ()


def side_from_core(side: CoreSideStats) -> SideStats:
    return SideStats(side.min, side.max, side.mean, side.std, side.nan, side.pos_inf, side.neg_inf)


def metrics_from_core(result: CoreMetrics) -> Metrics:
    """The Metrics of one pair from the core's result: every field the schema names."""
    return metrics_from_fields(result.fields())


def metrics_from_fields(fields: Tuple[Any, ...]) -> Metrics:
    """The Metrics of the core's ``MetricsResult.fields()`` tuple: count, both sides, VALUE_FIELDS in
    order, the note bits, read in one call (thousands of pairs a run, and thirty attribute reads
    cost more than the row they feed)."""
    count, x, y, *values, bits = fields
    # Positionally, in the schema's order (tests/report/test_metric_schema.py checks that the
    # dataclass and the core's tuple agree); typed Any since the tuple's length is not typed.
    make: Any = Metrics
    metrics: Metrics = make(count, SideStats(*x), SideStats(*y), *values, notes_from_bits(bits))
    return metrics


def core_fields(m: Metrics) -> Tuple[Any, ...]:
    """`m` as the core's ``MetricsResult.fields()`` tuple (its inverse of metrics_from_core), so a
    Metrics made in Python is formatted by the same code as the core's (``MetricsResult.from_fields``)."""
    bits = sum(1 << bit for bit, note in enumerate(NOTE_BITS) if note in m.notes)
    return (m.count, _side_fields(m.x), _side_fields(m.y), *_metric_values(m), bits)


_side_fields = attrgetter(*SIDE_FIELDS)
_metric_values = attrgetter(*VALUE_FIELDS)


__all__ = ["core_fields", "is_scalar_shape", "metrics_from_core", "metrics_from_fields", "notes_from_bits", "resolve_algorithms", "side_from_core"]

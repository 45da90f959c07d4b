"""Execution order of a graph: topological from the inputs, op-list order as the tiebreak."""

from __future__ import annotations

import heapq
from typing import Dict, List, Protocol, Sequence, Tuple


class _Input(Protocol):
    @property
    def producer(self) -> str: ...


class _Node(Protocol):
    """What the order reads of an op (graph.fusion_map.Op, which holds its order, so it is not
    imported here)."""

    @property
    def name(self) -> str: ...

    @property
    def inputs(self) -> Sequence[_Input]: ...


def topological_order(ops: Sequence[_Node]) -> Tuple[str, ...]:
    """Names of `ops` so that every producer precedes its consumers; among ready ops, list order first.

    Inputs from unknown producers are ignored; ops left on a cycle follow in list order.

    >>> from opdiff.graph.fusion_map import InputRef, Op
    >>> topological_order([Op("b", "Relu", inputs=(InputRef("a", 0),)), Op("a", "Data")])
    ('a', 'b')
    """
    position: Dict[str, int] = {}
    for i, op in enumerate(ops):
        position.setdefault(op.name, i)
    pending = [0] * len(ops)
    consumers: List[List[int]] = [[] for _ in ops]
    for i, op in enumerate(ops):
        for ref in op.inputs:
            producer = position.get(ref.producer)
            if producer is not None and producer != i:
                pending[i] += 1
                consumers[producer].append(i)
    ready = [i for i, count in enumerate(pending) if count == 0]
    heapq.heapify(ready)
    done = [False] * len(ops)
    order: List[str] = []
    while ready:
        i = heapq.heappop(ready)
        done[i] = True
        order.append(ops[i].name)
        for consumer in consumers[i]:
            pending[consumer] -= 1
            if pending[consumer] == 0:
                heapq.heappush(ready, consumer)
    order.extend(op.name for i, op in enumerate(ops) if not done[i])
    return tuple(order)

"""Random ops of a TensorFlow graph: given fixed seeds, so that a run can be repeated, and listed,
since their tensors (and what follows from them) cannot match a device run's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from opdiff.producers.tf.support import TfGraphDef

# Stateful random ops take their seed from the `seed` and `seed2` attributes; both 0 means "seed me
# from the clock", which no two runs share. The stateless ones take a seed tensor: repeatable
# already, but an NPU kernel draws other numbers from the same seed.
SEEDED_BY_ATTRIBUTES = frozenset({
    "RandomStandardNormal", "RandomUniform", "RandomUniformInt", "TruncatedNormal", "ParameterizedTruncatedNormal",
    "RandomShuffle", "RandomGamma", "RandomPoisson", "RandomPoissonV2", "Multinomial", "RandomCrop",
})
SEEDED_BY_INPUTS = frozenset({
    "StatelessRandomNormal", "StatelessRandomUniform", "StatelessRandomUniformInt", "StatelessTruncatedNormal",
    "StatelessMultinomial", "StatelessRandomNormalV2", "StatelessRandomUniformV2", "StatelessRandomUniformIntV2",
    "StatelessTruncatedNormalV2", "StatelessRandomUniformFullInt", "StatelessRandomUniformFullIntV2",
    "StatelessRandomGammaV2", "StatelessRandomGammaV3", "StatelessRandomPoisson", "StatelessRandomBinomial",
    "StatelessParameterizedTruncatedNormal", "StatelessRandomGetKeyCounterAlg", "StatelessRandomGetKeyCounter",
})


@dataclass(frozen=True)
class RandomOp:
    """A random op of the graph that ran: its seeds (None where a seed input decides) and whether
    opdiff set them (the graph left both at 0)."""

    op: str
    op_type: str
    seed: Optional[int]
    seed2: Optional[int]
    seeded_by_opdiff: bool


def seed_random_ops(graph_def: TfGraphDef, seed: int) -> List[RandomOp]:
    """Give every unseeded stateful random op of `graph_def` (changed in place) the seeds
    (`seed`, its position + 1), so that two runs draw the same numbers and two ops draw different
    ones; returns every random op of the graph."""
    found: List[RandomOp] = []
    for position, node in enumerate(graph_def.node):
        if node.op in SEEDED_BY_INPUTS:
            found.append(RandomOp(node.name, node.op, None, None, False))
        if node.op not in SEEDED_BY_ATTRIBUTES:
            continue
        unseeded = node.attr["seed"].i == 0 and node.attr["seed2"].i == 0
        if unseeded:
            node.attr["seed"].i = seed
            node.attr["seed2"].i = position + 1
        found.append(RandomOp(node.name, node.op, int(node.attr["seed"].i), int(node.attr["seed2"].i), unseeded))
    return found

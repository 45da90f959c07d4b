"""The search for a small set of ops to keep: the smallest it can find of the ranked candidates whose
outputs pass the target, checked 1-minimal at the end (removing any one op fails).

``linear`` adds one candidate at a time in rank order until the target passes (as many evaluations
as the passing prefix is long), then tries each kept op's removal. ``bisect`` first finds the
shortest passing prefix of the rank order by bisection; its last op is needed (the prefix without
it fails). Then it halves the rest of the prefix: given that candidates C pass with what is kept
already, it asks what the second half of C needs with the whole first half kept, then what the
first half needs with that, each by halving again, and a half whose ops are not needed costs one
evaluation. That is Junker's QuickXplain (2004) read for keeping instead of conflicts: for k ops
needed of n it makes about 2·k·log2(n/k) + 2·k evaluations, it prefers the higher-ranked half where
either would do, and errors that add up (no single op breaks the outputs, many together do) cost it
no more than single culprits. (Adding the last op of the shortest passing prefix over and over,
instead, collects ops that later ones make needless: 62 for densenet121's 25.)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import FrozenSet, List, Sequence

from opdiff.precision.steps import Steps


class SearchMode(str, Enum):
    BISECT = "bisect"
    LINEAR = "linear"


class Outcome(str, Enum):
    NOTHING_NEEDED = "nothing-needed"  # the empty set passes already
    FOUND = "found"
    NOT_REACHABLE = "not-reachable"  # keeping every candidate still fails: precision is not the cause


@dataclass(frozen=True)
class SearchResult:
    """What the search found: the ops kept, in rank order."""

    outcome: Outcome
    kept: Sequence[str]
    candidates: int


def search(ranked: Sequence[str], steps: Steps, mode: SearchMode = SearchMode.BISECT) -> SearchResult:
    """The 1-minimal set of `ranked` (most harmful first) that `steps` says passes.

    >>> from opdiff.precision.evaluate import Evaluation
    >>> from opdiff.precision.target import OutputCheck
    >>> needed = {"c", "f"}
    >>> steps = Steps(lambda kept: Evaluation(kept, (OutputCheck("y", 1.0, 0.0, needed <= kept),), 0.0))
    >>> result = search(list("abcdefgh"), steps)
    >>> sorted(result.kept), result.outcome.value
    (['c', 'f'], 'found')
    """
    everything = frozenset(ranked)
    if steps.passes(frozenset()):
        return SearchResult(Outcome.NOTHING_NEEDED, (), len(ranked))
    if not steps.passes(everything):
        return SearchResult(Outcome.NOT_REACHABLE, tuple(ranked), len(ranked))
    kept = _bisect(ranked, steps) if mode is SearchMode.BISECT else _linear(ranked, steps)
    return SearchResult(Outcome.FOUND, tuple(_one_minimal(kept, steps)), len(ranked))


def _linear(ranked: Sequence[str], steps: Steps) -> List[str]:
    kept: List[str] = []
    for name in ranked:
        kept.append(name)
        if steps.passes(frozenset(kept)):
            break
    return kept


def _bisect(ranked: Sequence[str], steps: Steps) -> List[str]:
    """A minimal part of `ranked` that passes, given that all of it passes (see the module notes)."""
    low, high = 0, len(ranked)  # ranked[:low] fails, ranked[:high] passes
    while high - low > 1:
        middle = (low + high) // 2
        if steps.passes(frozenset(ranked[:middle])):
            high = middle
        else:
            low = middle
    last = ranked[high - 1]  # every passing part of ranked[:high] holds it: ranked[:high - 1] fails
    order = {name: k for k, name in enumerate(ranked)}
    return sorted([last] + _needed(frozenset([last]), True, list(ranked[:high - 1]), steps), key=order.__getitem__)


def _needed(kept: FrozenSet[str], may_pass: bool, candidates: List[str], steps: Steps) -> List[str]:
    """A minimal part of `candidates` that passes with `kept`, given that `kept` with all of them
    passes; `may_pass`: `kept` alone might (it grew since that was last known to fail)."""
    if may_pass and steps.passes(kept):
        return []
    if len(candidates) == 1:
        return list(candidates)
    half = len(candidates) // 2
    first, second = candidates[:half], candidates[half:]
    from_second = _needed(kept | frozenset(first), True, second, steps)
    from_first = _needed(kept | frozenset(from_second), bool(from_second), first, steps)
    return from_first + from_second


def _one_minimal(kept: List[str], steps: Steps) -> List[str]:
    """Drop each op whose removal still passes (last ranked first), so that every one left is needed."""
    result = list(kept)
    for name in reversed(kept):
        trial = frozenset(result) - {name}
        if steps.passes(trial):
            result.remove(name)
    return result


"""The search for a small set of ops to keep: add candidates in rank order until the target passes,
then drop every op that is not needed, so that the set is 1-minimal (removing any one op fails).

``linear`` adds one candidate at a time (as many evaluations as the prefix that passes is long), then
tries each kept op's removal. ``bisect`` finds the shortest passing prefix by bisection, keeps its
last op, and searches the ops ranked before it again, until what is kept passes alone: k kept ops
of n candidates cost about k·(log2(n) + 1) evaluations, and the removal checks k more.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import List, Sequence

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
    kept: List[str] = []
    remaining = list(ranked)  # invariant: kept + remaining passes
    while not steps.passes(frozenset(kept)):
        low, high = 0, len(remaining)  # kept + remaining[:low] fails, kept + remaining[:high] passes
        while high - low > 1:
            middle = (low + high) // 2
            if steps.passes(frozenset(kept + remaining[:middle])):
                high = middle
            else:
                low = middle
        kept.append(remaining[high - 1])
        remaining = remaining[:high - 1]
    return sorted(kept, key=list(ranked).index)


def _one_minimal(kept: List[str], steps: Steps) -> List[str]:
    """Drop each op whose removal still passes (last ranked first), so that every one left is needed."""
    result = list(kept)
    for name in reversed(kept):
        trial = frozenset(result) - {name}
        if steps.passes(trial):
            result.remove(name)
    return result


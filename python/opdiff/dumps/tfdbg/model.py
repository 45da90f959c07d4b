"""What a tfdbg dump root holds, in opdiff's terms: runs (v1: ``session.run`` calls; v2: executions
of a traced function), some of them counted as steps, each with its dumped tensors by op and slot."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import FrozenSet, List, Optional, Sequence, Tuple


@dataclass(frozen=True)
class TensorRef:
    """One dumped tensor: the graph op and output slot it is of, when it was dumped (µs), and where
    its bytes lie (a v1 file, or the header offset of a v2 record in its stream)."""

    op_name: str
    output_slot: int
    timestamp: int
    path: str
    offset: int = -1
    dumped_name: str = ""  # the node name as dumped, where it differs (``_arg_x_0_0`` for ``x``)

    @property
    def label(self) -> str:
        """``{file}`` (v1) or ``{stream}@{offset}`` (v2): what a row names."""
        return self.path if self.offset < 0 else f"{self.path}@{self.offset}"


@dataclass(frozen=True)
class Run:
    """One run in time order: what it fetched (or which function it executed), its step number
    when it counts as one, its tensors, and the files of it that could not be read, with why."""

    number: int
    label: str
    fetches: Tuple[str, ...]
    step: Optional[int]
    tensors: Tuple[TensorRef, ...]
    problems: Tuple[Tuple[str, str], ...] = ()


@dataclass(frozen=True)
class TfdbgRoot:
    """A v1 or v2 dump root and its runs.

    >>> root = TfdbgRoot(Path("d"), 1, (Run(0, "run_1_0", ("init",), None, ()), Run(1, "run_2_1", ("train",), 0, ())))
    >>> [run.label for run in root.steps], root.step(None).label
    (['run_2_1'], 'run_2_1')
    """

    path: Path
    version: int
    runs: Tuple[Run, ...]
    problems: Tuple[Tuple[str, str], ...] = field(default=())
    rule: str = ""  # how the steps were chosen, in words

    @property
    def steps(self) -> List[Run]:
        return [run for run in self.runs if run.step is not None]

    def step(self, number: Optional[int]) -> Run:
        """Step `number`, or the last step; ValueError listing the steps there are."""
        steps = self.steps
        if not steps:
            raise ValueError(f"{self.path}: no run of this tfdbg root counts as a step ({self.rule})")
        if number is None:
            return steps[-1]
        for run in steps:
            if run.step == number:
                return run
        raise ValueError(f"{self.path}: no step {number}; steps found: {[run.step for run in steps]}")


def counted_signature(signatures: Sequence[FrozenSet[str]]) -> Optional[FrozenSet[str]]:
    """The fetches that make a run a step: those most runs made, the later run winning a tie
    (so one initialiser run and one training run make the training run the step).

    >>> sorted(counted_signature([frozenset({"init"}), frozenset({"train"}), frozenset({"train"})]))
    ['train']
    >>> counted_signature([frozenset()]) is None
    True
    """
    counts = Counter(signature for signature in signatures if signature)
    if not counts:
        return None
    best = max(counts.values())
    return next(signature for signature in reversed(signatures) if counts.get(signature) == best)


def number_steps(signatures: Sequence[FrozenSet[str]]) -> List[Optional[int]]:
    """Each run's step number (None: not counted): runs whose fetches include the counted ones,
    numbered from 0 in time order; when no run says what it fetched, every run counts."""
    key = counted_signature(signatures)
    numbers: List[Optional[int]] = []
    count = 0
    for signature in signatures:
        if key is None or key <= signature:
            numbers.append(count)
            count += 1
        else:
            numbers.append(None)
    return numbers

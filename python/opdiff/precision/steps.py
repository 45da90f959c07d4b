"""The step log: every evaluation of a search, one JSON line each in ``steps.jsonl`` of the output
folder, written as it finishes. ``--resume`` reads it back, so a search that was stopped replays the
evaluations it made (the search is deterministic) and goes on from the first one it lacks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, FrozenSet, List, Optional

from opdiff.precision.evaluate import Evaluation
from opdiff.precision.target import OutputCheck

STEPS_FILE = "steps.jsonl"
Evaluate = Callable[[FrozenSet[str]], Evaluation]


@dataclass
class Steps:
    """Evaluations by kept set, each made once; new ones are appended to `log` (when given).

    >>> from opdiff.precision.target import OutputCheck
    >>> steps = Steps(lambda kept: Evaluation(kept, (OutputCheck("y", 1.0, 0.0, "a" in kept),), 0.0))
    >>> steps.passes(frozenset("a")), steps.passes(frozenset("a")), steps.made
    (True, True, 1)
    """

    evaluate: Evaluate
    log: Optional[Path] = None
    done: Dict[FrozenSet[str], Evaluation] = field(default_factory=dict)
    order: List[Evaluation] = field(default_factory=list)
    made: int = 0  # evaluations run by this process (not read back from the log)
    on_step: Optional[Callable[[int, Evaluation], None]] = None

    def get(self, kept: FrozenSet[str]) -> Evaluation:
        if kept not in self.done:
            evaluation = self.evaluate(kept)
            self.made += 1
            self._record(evaluation)
            if self.log is not None:
                with self.log.open("a", encoding="utf-8") as stream:
                    stream.write(json.dumps(as_json(len(self.order), evaluation)) + "\n")
            if self.on_step is not None:
                self.on_step(len(self.order), evaluation)
        return self.done[kept]

    def passes(self, kept: FrozenSet[str]) -> bool:
        return self.get(kept).passed

    def _record(self, evaluation: Evaluation) -> None:
        self.done[evaluation.kept] = evaluation
        self.order.append(evaluation)

    def resume(self, log: Path) -> int:
        """Read the evaluations `log` holds (a torn last line, from a kill, is dropped); how many."""
        if not log.is_file():
            return 0
        count = 0
        for line in log.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            self._record(from_json(record))
            count += 1
        log.write_text("".join(json.dumps(as_json(k + 1, e)) + "\n" for k, e in enumerate(self.order)), encoding="utf-8")
        return count


def as_json(step: int, evaluation: Evaluation) -> Dict[str, object]:
    return {"step": step, "kept": sorted(evaluation.kept), "passed": evaluation.passed, "seconds": round(evaluation.seconds, 4),
            "outputs": [check.as_json() for check in evaluation.checks]}


def from_json(record: Dict[str, object]) -> Evaluation:
    outputs = record["outputs"]
    assert isinstance(outputs, list)
    checks = tuple(OutputCheck(str(o["output"]), _number(o["cosine"]), _number(o["norm_ratio_error"]), bool(o["passed"]))
                   for o in outputs)
    kept = record["kept"]
    assert isinstance(kept, list)
    seconds = record["seconds"]
    return Evaluation(frozenset(str(k) for k in kept), checks, float(seconds) if isinstance(seconds, (int, float)) else 0.0)


def _number(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) else float("nan")

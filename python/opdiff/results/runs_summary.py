"""The result model of many runs: one entry per run, and per op tensor its spread across runs.

opdiff.runs builds it as runs finish; the runs_* writers (JSON, console, HTML heat map) read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Dict, List, Optional, Tuple


class JobEnd(str, Enum):
    """How a many-run job ended (the CLI's exit code follows it)."""

    COMPLETE = "complete"
    INTERRUPTED = "interrupted"  # Ctrl-C
    CLUSTER_LOST = "cluster lost"  # the scheduler was lost, or a worker died and its runs could go nowhere else


class RunStatus(str, Enum):
    COMPARED = "compared"
    MAPPED = "mapped"  # -map: its mapping CSV is written (files["mapping"]), nothing compared
    NOT_COMPARED = "not compared"  # no partner, no rule, refused, or its worker was lost: `reason` says
    MISSING = "missing"  # the whole job stopped (Ctrl-C, lost scheduler) before this run finished


@dataclass(frozen=True)
class FirstFailure:
    """Where a run first breaks, in execution order: the op and its tensor (``op:output:0``)."""

    op: str
    tensor: str


@dataclass
class RunEntry:
    device: str
    model: str
    step: int
    status: RunStatus
    csv: Optional[Path] = None
    compared: int = 0
    failed: int = 0
    first_failure: Optional[FirstFailure] = None
    reason: Optional[str] = None
    location: str = ""  # "local" or the worker's address
    my: str = ""
    golden: str = ""
    files: Dict[str, Path] = field(default_factory=dict)  # the run's other files by kind: "advisor", "xlsx", "mapping"

    @property
    def label(self) -> str:
        """``{device}_{model}_{step}``: the run's name in the CSV names, the console and the heat map."""
        return f"{self.device}_{self.model}_{self.step}"


@dataclass(frozen=True)
class MetricSpread:
    """One verdict metric of a tensor across the runs that compared it: NaN is its worst value."""

    metric: str
    worst: float
    median: float
    best: float


@dataclass(frozen=True)
class Cell:
    """One tensor in one run: the verdict's first metric, and whether the verdict fails it."""

    value: float
    failed: bool


@dataclass
class TensorAcrossRuns:
    """One op tensor (``op:output:0``) across runs."""

    tensor: str
    op: str
    op_type: str
    spreads: List[MetricSpread] = field(default_factory=list)
    failing_runs: List[str] = field(default_factory=list)  # labels of the runs whose verdict fails it
    first_failure_in: List[str] = field(default_factory=list)  # labels of the runs that first break here
    cells: Dict[str, Cell] = field(default_factory=dict)  # by run label


@dataclass
class RunsSummary:
    """Every run of a plan (compared or not, with the reason) and the tensors across them."""

    runs: List[RunEntry]
    tensors: List[TensorAcrossRuns]
    metrics: Tuple[str, ...]  # the verdict's metrics, the first one shown in cells
    verdict: str
    my: str
    golden: str
    end: JobEnd = JobEnd.COMPLETE
    stopped_by: Optional[str] = None  # what ended it early, in words ("interrupted (Ctrl-C)", "the scheduler was lost: ...")
    path: Optional[Path] = None  # where the JSON summary was written
    warnings: List[str] = field(default_factory=list)  # the plan's (a rule found by its trailing id only), not in the JSON

    @property
    def complete(self) -> bool:
        return self.end is JobEnd.COMPLETE

    @property
    def compared(self) -> List[RunEntry]:
        return [run for run in self.runs if run.status is RunStatus.COMPARED]

    @property
    def failing(self) -> List[RunEntry]:
        return [run for run in self.compared if run.failed]

    @property
    def mapped(self) -> List[RunEntry]:
        """-map: the runs whose mapping CSV was written."""
        return [run for run in self.runs if run.status is RunStatus.MAPPED]

    @property
    def not_compared(self) -> List[RunEntry]:
        return [run for run in self.runs if run.status not in (RunStatus.COMPARED, RunStatus.MAPPED)]

    @property
    def missing(self) -> List[RunEntry]:
        return [run for run in self.runs if run.status is RunStatus.MISSING]

    def run(self, label: str) -> RunEntry:
        return next(run for run in self.runs if run.label == label)

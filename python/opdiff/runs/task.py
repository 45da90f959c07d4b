"""One run of a plan, compared where its files are: the same function runs in this process or on a
cluster worker. It calls the single comparison (`opdiff.compare`) and sends back the Report, rows
and all; the caller writes every file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

from opdiff.dumps.tfdbg.cache import exported_from
from opdiff.engine.options import CompareOptions
from opdiff.runs.plan import Place, PlannedRun
from opdiff.runs.roots import Roots
from opdiff.runs.tree import RunKey, SideView, view_side

if TYPE_CHECKING:
    from opdiff.results.tensor_report import Report


@dataclass(frozen=True)
class RunTask:
    """A planned run and how to compare it, its own model's rules read and -r/-s resolved against
    them: everything a worker needs besides its files."""

    run: PlannedRun
    options: CompareOptions

    @property
    def key(self) -> RunKey:
        return self.run.key


@dataclass
class RunOutcome:
    """A run's result: its Report, or the reason it was not compared. `interrupted`: Ctrl-C stopped it."""

    key: RunKey
    location: str = ""
    report: Optional[Report] = None
    reason: Optional[str] = None
    interrupted: bool = False
    lost: bool = False  # its worker died (or the scheduler went) before it finished
    mapping: Optional[List[List[str]]] = None  # -map: the mapping CSV's rows, made where the files are
    notes: Sequence[str] = field(default_factory=tuple)


def view_sides(my: str, golden: str, step: Optional[int], roots: Optional[Roots]) -> Tuple[SideView, SideView]:
    """Both sides as this process sees them; a side outside `roots` is refused with the reason."""
    views = []
    for root in (my, golden):
        refusal = roots.refusal(root) if roots is not None else None
        views.append(SideView(root, error=refusal) if refusal else view_side(root, step))
    return views[0], views[1]


def compare_run(task: RunTask, location: str, roots: Optional[Roots]) -> RunOutcome:
    """Compare `task`'s run with the folders `location` sees; refuses folders outside `roots`."""
    from opdiff.engine.comparison import compare
    from opdiff.graph import GraphFormatError
    from opdiff.results.tensor_report import Report

    place = _place_at(task.run, location)
    if place is None:
        return RunOutcome(task.key, location, reason=f"{location} does not see run {task.key.label}")
    for folder in (place.my, place.golden):
        # a tfdbg root's step, exported to this worker's cache, is served as its root is
        refusal = roots.refusal(exported_from(folder) or folder) if roots is not None else None
        if refusal is not None:
            return RunOutcome(task.key, location, reason=refusal)
    options = task.options
    if options.mapping_only:
        return _map_run(task, place, location)
    try:
        report = compare(place.my, place.golden, options)
    except (ValueError, OSError, GraphFormatError) as error:
        return RunOutcome(task.key, location, reason=str(error))
    if not isinstance(report, Report):  # a Result of the statistics family
        return RunOutcome(task.key, location, reason="statistics dumps: compare such a run on its own (opdiff compare -m RUN)")
    return RunOutcome(task.key, location, report=report, interrupted=not report.complete)


def _map_run(task: RunTask, place: Place, location: str) -> RunOutcome:
    """-map of one run: which files each tensor would be compared with, as rows of its mapping CSV."""
    from opdiff.graph import GraphFormatError
    from opdiff.match.mapping_csv import mapping_rows
    from opdiff.match.planning import plan

    options = task.options
    if options.fusion_rule is None and options.quant_fusion_rule is None:
        return RunOutcome(task.key, location, reason="-map needs -f or -q")
    try:
        rules = options.read_rules()
        _, plans, _, _ = plan(place.my, place.golden, fusion_rule=rules.fusion, close_fusion_rule=rules.close,
                              quant_fusion_rule=rules.quant, ids=rules.ids, all_occurrences=options.all_occurrences,
                              slices_apart=options.ffts)
    except (ValueError, OSError, GraphFormatError) as error:
        return RunOutcome(task.key, location, reason=str(error))
    rows = list(mapping_rows(sorted(plans, key=lambda op_plan: op_plan.index)))
    return RunOutcome(task.key, location, mapping=rows)


def _place_at(run: PlannedRun, location: str) -> Optional[Place]:
    return next((place for place in run.places if place.location == location), None)

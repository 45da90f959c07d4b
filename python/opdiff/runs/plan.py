"""The plan of many runs: which runs of ``-m`` pair with which golden side, and where each can run.

Pairing (docs/many-runs.md): ``-m`` a tree and ``-g`` one folder compares every run with that folder
(NPU vs golden, or every run against one run of the tree); two trees pair runs by (device, model,
step); ``-g`` a golden of numbered steps gives each run the golden step of its own
number. A run without a partner, or without a rule, is kept as a skipped run with its reason, so that
the summary lists it and the other runs go on.

A *location* is where files are seen: ``"local"`` for this machine, a worker's address on a cluster.
Each location reports its own view of both sides (paths as it spells them); a run can run at every
location that sees both of its sides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping, Tuple

from opdiff.runs.rules import RuleSet
from opdiff.runs.tree import RunKey, SideView

LOCAL = "local"


@dataclass(frozen=True)
class Place:
    """Where a run can be compared: a location and both sides' folders as that location sees them."""

    location: str
    my: str
    golden: str


@dataclass(frozen=True)
class PlannedRun:
    key: RunKey
    places: Tuple[Place, ...]


@dataclass(frozen=True)
class SkippedRun:
    key: RunKey
    reason: str


@dataclass(frozen=True)
class SideViews:
    """One location's view of both sides."""

    my: SideView
    golden: SideView


@dataclass
class RunPlan:
    runs: List[PlannedRun] = field(default_factory=list)
    skipped: List[SkippedRun] = field(default_factory=list)
    golden_is_tree: bool = False
    warnings: List[str] = field(default_factory=list)  # e.g. a rule found by its trailing id only, once per model

    @property
    def keys(self) -> List[RunKey]:
        """Every run of the plan, compared or skipped, in (device, model, step) order."""
        return sorted({run.key for run in self.runs} | {run.key for run in self.skipped})


def plan_runs(views: Mapping[str, SideViews], rules: RuleSet) -> RunPlan:
    """Pair the runs the locations see; ValueError when no location sees the ``-m`` side, or when
    ``-g`` is a tree and ``-m`` one run."""
    seen = {location: view for location, view in views.items() if view.my.error is None}
    if not seen:
        raise ValueError(_no_view_message("-m", {location: view.my for location, view in views.items()}))
    if any(view.golden.is_tree for view in views.values()) and not any(view.my.is_tree for view in seen.values()):
        raise ValueError("-g is a dump tree but -m is one run: point -g at one run, or -m at a tree")
    golden_views = {location: view.golden for location, view in views.items() if view.golden.error is None}
    if not golden_views:
        raise ValueError(_no_view_message("-g", {location: view.golden for location, view in views.items()}))
    golden_is_tree = any(view.is_tree for view in golden_views.values())

    my_places: Dict[RunKey, Dict[str, str]] = {}
    golden_places: Dict[RunKey, Dict[str, str]] = {}
    for location, view in seen.items():
        for key, folder in _runs_of(view.my):
            my_places.setdefault(key, {})[location] = folder
    for location, golden in golden_views.items():
        for key, folder in _runs_of(golden):
            golden_places.setdefault(key, {})[location] = folder

    plan = RunPlan(golden_is_tree=golden_is_tree)
    for key in sorted(my_places):
        choice = rules.for_model(key.model)
        if choice.reason is not None:
            plan.skipped.append(SkippedRun(key, choice.reason))
            continue
        if choice.warning is not None and choice.warning not in plan.warnings:
            plan.warnings.append(choice.warning)
        golden_at = golden_places.get(key) if golden_is_tree else _golden_of(golden_views, key.step)
        if not golden_at:
            plan.skipped.append(SkippedRun(key, _no_golden(key, golden_views)))
            continue
        places = tuple(Place(location, my_places[key][location], golden_at[location])
                       for location in sorted(my_places[key]) if location in golden_at)
        if not places:
            plan.skipped.append(SkippedRun(key, f"no worker sees both sides: -m on {', '.join(sorted(my_places[key]))}, "
                                                f"-g on {', '.join(sorted(golden_at))}"))
            continue
        plan.runs.append(PlannedRun(key, places))
    if golden_is_tree:
        for key in sorted(set(golden_places) - set(my_places)):
            plan.skipped.append(SkippedRun(key, "a golden run without its run on the -m side"))
    return plan


def _runs_of(view: SideView) -> List[Tuple[RunKey, str]]:
    if view.single is not None:
        return [(RunKey.of_folder(view.single), view.single)]
    if view.steps:  # numbered golden steps on the -m side: a run each
        return [(RunKey("-", Path(folder).parent.name, step), folder) for step, folder in view.steps]
    return [(run.key, run.folder) for run in view.runs]


def _golden_of(golden_views: Mapping[str, SideView], step: int) -> Dict[str, str]:
    """Where each location sees the golden of a run of step `step`: the one golden folder, or the
    golden step of that number."""
    found: Dict[str, str] = {}
    for location, view in golden_views.items():
        folder = view.single if view.single is not None else view.step_folder(step)
        if folder is not None:
            found[location] = folder
    return found


def _no_golden(key: RunKey, golden_views: Mapping[str, SideView]) -> str:
    steps = sorted({number for view in golden_views.values() for number, _ in view.steps})
    if steps:
        return f"no golden step {key.step} (the golden's steps: {', '.join(map(str, steps))})"
    return f"no golden run for device {key.device}, model {key.model}, step {key.step}"


def _no_view_message(flag: str, views: Mapping[str, SideView]) -> str:
    reasons = sorted({view.error or "" for view in views.values()})
    if len(views) == 1 and LOCAL in views:
        return reasons[0]
    return f"no worker sees {flag}: " + "; ".join(f"{reason}" for reason in reasons)


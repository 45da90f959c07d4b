"""Dump trees: which runs lie below a folder of the device layout
``{dump_path}/{time}/{device}/{model}/{model_id}/{step}/`` (docs/reference/device-files.md), read from folder names only.

A folder at the ``{model_id}`` level or below is one run (the newest step, or ``--step N``), as a
single comparison takes it; a folder at the ``{model}``, ``{device}`` or ``{time}`` level is a tree: one
run per (device, model, step) below it, every step included unless ``--step N`` restricts it.

A golden folder of numbered steps (``{step}/`` folders of golden ``.npy`` files right below it, a
framework run dumped step by step) is neither: each run of ``-m`` meets the golden step of its own
number.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

from opdiff.conventions.dump_names import is_golden_name, is_npu_dump_name
from opdiff.dumps.discovery import DumpLeaf, choose_leaf, find_leaves
from opdiff.dumps.tfdbg.detect import tfdbg_version

# A leaf this many folders below the root is at least at the {model} level: the root is a tree.
TREE_DEPTH = 2


@dataclass(frozen=True, order=True)
class RunKey:
    """Which run a step folder holds: its device, model and step (folder names of the layout)."""

    device: str
    model: str
    step: int

    @property
    def label(self) -> str:
        """``{device}_{model}_{step}``, as the reference's batch mode starts its result names."""
        return f"{self.device}_{self.model}_{self.step}"

    @classmethod
    def of_folder(cls, folder: str) -> RunKey:
        """The key a step folder's path gives (``.../{device}/{model}/{model_id}/{step}``); a folder
        outside the layout (a flat golden folder, say) is its own model, on no device, step 0."""
        parts = Path(os.path.abspath(folder)).parts
        if len(parts) >= 5 and parts[-1].isdigit():
            return cls(parts[-4], parts[-3], int(parts[-1]))
        return cls("-", parts[-1] if parts else folder, 0)


@dataclass(frozen=True)
class RunFolder:
    """One run of a tree and its step folder, as the machine that found it spells the path."""

    key: RunKey
    folder: str


@dataclass(frozen=True)
class SideView:
    """What one machine sees of ``-m`` or ``-g``: a tree of runs, one run's folder, or an error."""

    root: str
    runs: Tuple[RunFolder, ...] = ()
    single: Optional[str] = None
    error: Optional[str] = None
    # a golden of numbered steps, or a tfdbg root's steps: (step, its folder), by step; each run
    # of -m meets the golden step of its own number
    steps: Tuple[Tuple[int, str], ...] = ()

    @property
    def is_tree(self) -> bool:
        return self.error is None and self.single is None and not self.steps

    def step_folder(self, step: int) -> Optional[str]:
        """The folder of golden step `step`, where this side is a golden of numbered steps."""
        return next((folder for number, folder in self.steps if number == step), None)


def view_side(root: str, step: Optional[int]) -> SideView:
    """Discover what lies under `root` (relative paths against this process's working folder)."""
    path = Path(root)
    if not path.exists():
        return SideView(root, error=f"{root}: no such file or folder")
    if not path.is_dir():
        return SideView(root, error=f"{root}: a dump folder is expected here")
    if tfdbg_version(path):
        return _tfdbg_view(root, step)
    leaves = find_leaves(path)
    if not leaves:
        return SideView(root, error=f"{root}: no dump files found")
    depth = len(path.parts)
    steps = numbered_golden_steps(leaves, depth, step)
    if steps:
        return SideView(root, steps=steps)
    if all(len(leaf.folder.parts) - depth < TREE_DEPTH for leaf in leaves):
        try:
            return SideView(root, single=str(choose_leaf(path, leaves, step).folder))
        except ValueError as error:
            return SideView(root, error=str(error))
    return _tree_view(root, leaves, depth, step)


def _tfdbg_view(root: str, step: Optional[int]) -> SideView:
    """A tfdbg root: one step's golden folder with --step, else every step's (each exported only
    when a run compares it)."""
    from opdiff.dumps.tfdbg.golden import golden_step_folders, step_folder  # numpy and protobuf: only here
    from opdiff.dumps.tfdbg.roots import read_tfdbg_root

    try:
        dump = read_tfdbg_root(root)
        if step is not None:
            return SideView(root, single=str(step_folder(dump, dump.step(step))))
        steps = golden_step_folders(dump)
    except (OSError, ValueError) as error:
        return SideView(root, error=str(error))
    if not steps:
        return SideView(root, error=f"{root}: no run of this tfdbg root counts as a step ({dump.rule})")
    return SideView(root, steps=tuple((number, str(folder)) for number, folder in steps))


def numbered_golden_steps(leaves: List[DumpLeaf], depth: int, step: Optional[int]) -> Tuple[Tuple[int, str], ...]:
    """(step, folder) of each step of a golden of numbered steps, by step (only `step` where given):
    every leaf a digit-named folder right below the root, holding golden files and no NPU dump.
    Empty for any other side (a tree, one run, a flat golden folder)."""
    if not leaves or any(leaf.step is None or len(leaf.folder.parts) - depth != 1 for leaf in leaves):
        return ()
    for leaf in leaves:
        names = os.listdir(leaf.folder)
        if any(is_npu_dump_name(name) for name in names) or not any(is_golden_name(name) for name in names):
            return ()
    numbered = sorted((leaf.step, str(leaf.folder)) for leaf in leaves if leaf.step is not None)
    return tuple(pair for pair in numbered if step is None or pair[0] == step)


def _tree_view(root: str, leaves: List[DumpLeaf], depth: int, step: Optional[int]) -> SideView:
    runs: dict[RunKey, RunFolder] = {}
    for leaf in leaves:
        if leaf.step is None or len(leaf.folder.parts) - depth < TREE_DEPTH:
            return SideView(root, error=f"{leaf.folder}: dump files outside the layout "
                                        "{time}/{device}/{model}/{model_id}/{step}/ of the tree at " + root)
        key = RunKey.of_folder(str(leaf.folder))
        if step is not None and key.step != step:
            continue
        if key in runs:
            return SideView(root, error=f"{root}: two folders hold run {key.label} ({runs[key].folder} and "
                                        f"{leaf.folder}); point at one {{time}} folder")
        runs[key] = RunFolder(key, str(leaf.folder))
    if not runs:
        return SideView(root, error=f"{root}: no step {step} in this tree")
    return SideView(root, runs=tuple(runs[key] for key in sorted(runs)))

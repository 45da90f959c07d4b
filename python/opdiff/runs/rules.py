"""Fusion rules for many runs: one rule for every run, or a folder of rules matched to runs by model
name, as the reference's batch mode matches them (docs/reference/reference-tool.md §2.3). The client reads them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from opdiff.graph import FusionMap, read_graph

RULE_SUFFIXES = (".json", ".om")
_TRAILING_ID = re.compile(r"_([0-9]+)$")


@dataclass(frozen=True)
class RuleChoice:
    """The rule of one model, or why there is none (`reason`)."""

    rule: Optional[FusionMap]
    reason: Optional[str] = None


@dataclass
class RuleSet:
    """No rule, one rule for all runs, or the rules of a folder by the model names they carry."""

    source: Optional[Path] = None
    single: Optional[FusionMap] = None
    by_name: Dict[str, FusionMap] = field(default_factory=dict)

    @property
    def is_folder(self) -> bool:
        return self.source is not None and self.single is None

    def for_model(self, model: str) -> RuleChoice:
        """The rule for runs of `model`: its name among the rules' graph names; else, where the
        names differ in their timestamps, the one rule with the same trailing numeric id."""
        if not self.is_folder:
            return RuleChoice(self.single)
        if model in self.by_name:
            return RuleChoice(self.by_name[model])
        wanted = _TRAILING_ID.search(model)
        if wanted is not None:
            same_id = {id(rule): rule for name, rule in self.by_name.items()
                       if (found := _TRAILING_ID.search(name)) is not None and found.group(1) == wanted.group(1)}
            if len(same_id) == 1:
                return RuleChoice(next(iter(same_id.values())))
        return RuleChoice(None, f"no fusion rule for model {model} in {self.source}")


def read_rules(path: Optional[Path]) -> RuleSet:
    """`path` as a RuleSet: None, one .om/JSON file, or a folder of them (ValueError naming the
    file for a folder without rules or two rules naming one model)."""
    if path is None:
        return RuleSet()
    if not path.is_dir():
        return RuleSet(path, single=read_graph(path))
    by_name: Dict[str, FusionMap] = {}
    where: Dict[str, Path] = {}
    files = sorted(child for child in path.iterdir() if child.is_file() and child.suffix.lower() in RULE_SUFFIXES)
    if not files:
        raise ValueError(f"{path}: a folder of fusion rules holds no .json or .om file")
    for file in files:
        rule = read_graph(file)
        for name in _names_of(rule, file):
            if name in by_name and by_name[name] is not rule:
                raise ValueError(f"{file}: model {name} already has the rule {where[name]}")
            by_name[name], where[name] = rule, file
    return RuleSet(path, by_name=by_name)


def _names_of(rule: FusionMap, file: Path) -> Tuple[str, ...]:
    """The model names a rule answers to: its graphs' names (atc JSON ``graph[].name``), the model's
    name and the file's stem."""
    names: List[str] = [name for name in (*rule.graphs, rule.name, file.stem) if name]
    return tuple(dict.fromkeys(names))

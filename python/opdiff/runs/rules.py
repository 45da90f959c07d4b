"""Fusion rules for many runs: one rule for every run, or a folder of rules matched to runs by model
name, as the reference's batch mode matches them (docs/reference/reference-tool.md §2.3). The client reads them.

A folder may hold GE graph dumps (ge_proto_*.txt, ge_onnx_*.pbtxt) too, many stages of many graphs:
each graph answers to its own name (the dump tree's {model} level). Where one model name has dumps
of several stages, the Build stage wins (it is what runs); the ge_onnx twin of a ge_proto dump (same
number and stage) is not read, the ge_proto form keeps every attribute. Any other clash is an error
that lists the files."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from opdiff.graph import FusionMap, read_graph
from opdiff.match.planning import RuleLike

RULE_SUFFIXES = (".json", ".om")
BUILD_STAGE = "Build"
# ge_proto_{N}_{stage}.txt, ge_proto_{N}_graph_{K}_{stage}.txt, ge_onnx_{N}_graph_{K}_{stage}.pbtxt
GE_DUMP_NAME = re.compile(r"^ge_(proto|onnx)_([0-9]+)_(?:graph_[0-9]+_)?(.+)\.(?:txt|pbtxt)$")
_TRAILING_ID = re.compile(r"_([0-9]+)$")


@dataclass(frozen=True)
class _Candidate:
    file: Path
    rule: FusionMap
    stage: Optional[str]  # a GE graph dump's stage; None for an .om or atc JSON


@dataclass(frozen=True)
class RuleChoice:
    """The rule of one model, or why there is none (`reason`)."""

    rule: Optional[FusionMap]
    reason: Optional[str] = None
    warning: Optional[str] = None  # the rule was found by its trailing id only: the names' timestamps differ


@dataclass
class RuleSet:
    """No rule, one rule for all runs, or the rules of a folder by the model names they carry."""

    source: Optional[Path] = None
    single: Optional[FusionMap] = None
    by_name: Dict[str, FusionMap] = field(default_factory=dict)
    ambiguous: Dict[str, str] = field(default_factory=dict)  # model name -> why no one rule is meant

    @property
    def is_folder(self) -> bool:
        return self.source is not None and self.single is None

    def for_model(self, model: str) -> RuleChoice:
        """The rule for runs of `model`: its name among the rules' graph names; else, where the
        names differ in their timestamps, the one rule with the same trailing numeric id, with a
        warning (the graph and the dump were not made at the same time)."""
        if not self.is_folder:
            return RuleChoice(self.single)
        if model in self.by_name:
            return RuleChoice(self.by_name[model])
        if model in self.ambiguous:
            return RuleChoice(None, self.ambiguous[model])
        wanted = _TRAILING_ID.search(model)
        if wanted is not None:
            same_id: Dict[int, Tuple[str, FusionMap]] = {}
            for name, rule in self.by_name.items():
                found = _TRAILING_ID.search(name)
                if found is not None and found.group(1) == wanted.group(1):
                    same_id.setdefault(id(rule), (name, rule))
            if len(same_id) == 1:
                ((name, rule),) = same_id.values()
                return RuleChoice(rule, warning=timestamp_warning(model, name, self.source))
        return RuleChoice(None, f"no fusion rule for model {model} in {self.source}")


def timestamp_warning(model: str, graph: str, source: Optional[Path]) -> str:
    """What a run is told when its model folder and its rule's graph differ in the timestamp only."""
    return (f"model {model}: no graph of that name in {source}; the graph {graph}, the same but for its timestamp, "
            "is its rule. They were not dumped at the same time: the result may be incorrect")


def read_rules(given: RuleLike) -> RuleSet:
    """`given` as a RuleSet: None, a rule (a FusionMap or one rule file), or a folder of them
    (ValueError naming the folder when it holds no rule). A model name that several rules answer to,
    with no Build-stage dump to pick, is that model's runs' error, listing the files."""
    if given is None:
        return RuleSet()
    if isinstance(given, FusionMap):
        return RuleSet(single=given)
    path = Path(given)
    if not path.is_dir():
        return RuleSet(path, single=read_graph(path))
    files = rule_files(path)
    if not files:
        raise ValueError(f"{path}: a folder of fusion rules holds no .json, .om or GE graph dump (ge_proto_*.txt, ge_onnx_*.pbtxt)")
    candidates: Dict[str, List[_Candidate]] = {}
    for file in files:
        match = GE_DUMP_NAME.match(file.name)
        candidate = _Candidate(file, read_graph(file), match.group(3) if match else None)
        for name in _names_of(candidate.rule, file):
            candidates.setdefault(name, []).append(candidate)
    rules = RuleSet(path)
    for name, found in candidates.items():
        try:
            rules.by_name[name] = _choose(name, found)
        except ValueError as error:  # an error of the runs of this model only
            rules.ambiguous[name] = str(error)
    return rules


def rule_files(folder: Path) -> List[Path]:
    """The rule files of a folder, sorted: .json and .om files, and GE graph dumps by their names,
    less the ge_onnx dumps whose ge_proto twin (same number and stage) is there."""
    files = sorted(child for child in folder.iterdir() if child.is_file())
    dumps = {(m.group(1), m.group(2), m.group(3)) for m in map(GE_DUMP_NAME.match, (f.name for f in files)) if m}
    chosen = []
    for file in files:
        match = GE_DUMP_NAME.match(file.name)
        if match is None:
            if file.suffix.lower() in RULE_SUFFIXES:
                chosen.append(file)
        elif match.group(1) == "proto" or ("proto", match.group(2), match.group(3)) not in dumps:
            chosen.append(file)
    return chosen


def _choose(name: str, found: List[_Candidate]) -> FusionMap:
    """The one rule for model `name`: the only one, else the only Build-stage GE dump."""
    unique = list({id(c.rule): c for c in found}.values())
    if len(unique) > 1 and all(c.stage is not None for c in unique):
        builds = [c for c in unique if c.stage == BUILD_STAGE]
        unique = builds or unique
    if len(unique) == 1:
        return unique[0].rule
    choices = ", ".join(f"{c.file.name}" + (f" (stage {c.stage})" if c.stage else "") for c in unique)
    raise ValueError(f"{unique[0].file.parent}: model {name} has {len(unique)} fusion rules, which one is meant is not "
                     f"clear: {choices}; keep one in the folder, or give it with -f")


def _names_of(rule: FusionMap, file: Path) -> Tuple[str, ...]:
    """The model names a rule answers to: its graphs' names (atc JSON ``graph[].name``), the model's
    name and the file's stem."""
    names: List[str] = [name for name in (*rule.graphs, rule.name, file.stem) if name]
    return tuple(dict.fromkeys(names))

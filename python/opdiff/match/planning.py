"""Scenario planning: from two dump folders and the rules, which comparison they describe and the op
plans that carry it out (docs/reference/reference-tool.md §3.4). Matching one op is op_matching's job; this
module indexes the sides, chooses the scenario and its rule, and orders the plans."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import AbstractSet, FrozenSet, List, Optional, Sequence, Tuple, Union

from opdiff.conventions.dump_names import escape_op_name
from opdiff.conventions.quant_names import QUANTIZE_OP_TYPES, is_quantized_name
from opdiff.dumps.discovery import DumpIndex, FileKind, choose_leaf, find_leaves, index_folder
from opdiff.graph import FusionMap, QuantFilter, merge_close_fusion, merge_quant_rule, quant_filter, read_graph
from opdiff.graph.gc_pause import gc_paused
from opdiff.match.op_matching import OpPlan, plan_by_op_name, plan_with_fusion_rule
from opdiff.results.scenario import Scenario

PathLike = Union[str, "os.PathLike[str]"]
RuleLike = Union[PathLike, FusionMap, None]


def _index_side(path: PathLike, step: Optional[int], with_fusion_rule: bool, slices_apart: bool = False) -> DumpIndex:
    root = Path(path)
    if not root.exists():
        raise ValueError(f"{root}: no such file or folder")
    if not root.is_dir():
        raise ValueError(f"{root}: a dump folder is expected here")
    root = tfdbg_golden(root, step)
    leaf = choose_leaf(root, find_leaves(root), step)
    return index_folder(leaf.folder, with_fusion_rule=with_fusion_rule, slices_apart=slices_apart)


def tfdbg_golden(root: Path, step: Optional[int]) -> Path:
    """A tfdbg dump root's step (default: the last) as its exported golden folder, a cache folder a
    plan of many runs named exported now (dumps/tfdbg/golden.py); any other folder as it is."""
    from opdiff.dumps.tfdbg.detect import is_pending_export, tfdbg_version

    if tfdbg_version(root):
        from opdiff.dumps.tfdbg.golden import golden_folder  # numpy and protobuf: only for tfdbg

        return golden_folder(root, step)
    if is_pending_export(root):
        from opdiff.dumps.tfdbg.golden import prepare

        return prepare(root)
    return root


def read_rule(rule: RuleLike) -> Optional[FusionMap]:
    if rule is None or isinstance(rule, FusionMap):
        return rule
    return read_graph(rule)


def plan_comparison(
    my_index: DumpIndex,
    golden_index: DumpIndex,
    fusion_rule: Optional[FusionMap],
    close_fusion_rule: Optional[FusionMap],
    quant_fusion_rule: Optional[FusionMap],
    ids: Optional[Sequence[int]] = None,
) -> Tuple[Scenario, List[OpPlan], Optional[QuantFilter]]:
    """Which scenario the inputs describe, its plans and the quant filter of the (merged) rule they
    follow (None by op name). ValueError for combinations the reference refuses (§3.4): e.g. `-cf`
    without `-f`, or a golden .npy folder without a fusion rule."""
    if my_index.kind is None or not my_index.kind.is_npu:
        raise ValueError(f"{my_index.folder}: the compared (-m) side must hold NPU dump files")
    if close_fusion_rule is not None:
        if fusion_rule is None or golden_index.kind is None or not golden_index.kind.is_npu:
            raise ValueError("-cf needs -f and NPU dumps on both sides (fusion on vs off)")
        merged = merge_close_fusion(fusion_rule, close_fusion_rule)
        quant = quant_filter(merged)
        return (Scenario.FUSION_ON_VS_OFF,
                plan_with_fusion_rule(merged, my_index, golden_index, quant, golden_is_npu=True, ids=ids), quant)
    if golden_index.kind is FileKind.GOLDEN:
        if fusion_rule is None:
            raise ValueError("comparing NPU dumps with golden .npy files needs the fusion rule (-f: .om or atc JSON)")
        if quant_fusion_rule is None and my_index.is_quant and not golden_index.is_quant:
            raise ValueError(missing_quant_rule(my_index, golden_index))
        if quant_fusion_rule is not None:
            fusion_rule = merge_quant_rule(fusion_rule, quant_fusion_rule)
        quant = quant_filter(fusion_rule)
        return Scenario.NPU_VS_GOLDEN, plan_with_fusion_rule(fusion_rule, my_index, golden_index, quant, ids=ids), quant
    if fusion_rule is not None:
        raise ValueError("NPU vs NPU takes either no fusion rule or both -f and -cf")
    if my_index.is_quant != golden_index.is_quant:
        raise ValueError("NPU vs NPU compares quantized with quantized and float with float dumps only")
    return Scenario.NPU_VS_NPU, plan_by_op_name(my_index, golden_index), None


def missing_quant_rule(my_index: DumpIndex, golden_index: DumpIndex) -> str:
    """Why a quantized model's dumps cannot meet the golden of the float model without -q (the
    reference refuses so, docs/reference/reference-tool.md §3.4): their names differ, and only the
    quant fusion rule maps one to the other."""
    marked = next(key for key in sorted(my_index.files) if is_quantized_name(key))
    return (f"{my_index.folder}: these dumps come from a quantized model (op names such as {marked!r}) and "
            f"{golden_index.folder} holds the golden of the unquantized original model: the quant fusion rule "
            "that maps the two is needed, give it with -q QUANT_RULE (.om or JSON)")


def plan(
    my: PathLike,
    golden: PathLike,
    *,
    fusion_rule: RuleLike = None,
    close_fusion_rule: RuleLike = None,
    quant_fusion_rule: RuleLike = None,
    ids: Optional[Sequence[int]] = None,
    step: Optional[int] = None,
    all_occurrences: bool = False,
    slices_apart: bool = False,
) -> Tuple[Scenario, List[OpPlan], DumpIndex, DumpIndex]:
    """Index both sides and match them: the scenario, the op plans and the two indexes.

    By default each op's newest dump is compared, as the reference does. With `all_occurrences`
    every run of an op is (an op dumped several times in one step, e.g. a loop body): the k-th
    dump of my side against the k-th of the golden side (its newest when it has fewer), rows
    named ``op#k`` and ordered run by run."""
    scenario, plans, my_index, golden_index, _ = plan_and_quant_skips(
        my, golden, fusion_rule=fusion_rule, close_fusion_rule=close_fusion_rule, quant_fusion_rule=quant_fusion_rule,
        ids=ids, step=step, all_occurrences=all_occurrences, slices_apart=slices_apart,
    )
    return scenario, plans, my_index, golden_index


def plan_and_quant_skips(
    my: PathLike,
    golden: PathLike,
    *,
    fusion_rule: RuleLike,
    close_fusion_rule: RuleLike,
    quant_fusion_rule: RuleLike,
    ids: Optional[Sequence[int]],
    step: Optional[int],
    all_occurrences: bool,
    slices_apart: bool = False,
) -> Tuple[Scenario, List[OpPlan], DumpIndex, DumpIndex, FrozenSet[str]]:
    """:func:`plan`, plus the ops the quant filter skipped (they have no plan, and the report says so).
    `slices_apart` (``-ffts``): FFTS+ manual-mode slices are compared slice by slice, not joined."""
    has_rule = fusion_rule is not None or quant_fusion_rule is not None
    # Indexes and plans are many small acyclic objects: the collector would rescan them all again
    # and again (a quarter more time per op at 200,000 ops than at 2,000).
    with gc_paused():
        my_index = _index_side(my, step, has_rule, slices_apart)
        golden_index = _index_side(golden, step, has_rule, slices_apart)
        rules = (read_rule(fusion_rule), read_rule(close_fusion_rule), read_rule(quant_fusion_rule))
        scenario, plans, quant = plan_comparison(my_index, golden_index, *rules, ids)
        quant_skipped = quant.skipped_ops if quant is not None else frozenset()
        plans.sort(key=lambda op_plan: op_plan.index)  # stable: members of a group keep their order
        if all_occurrences and my_index.occurrences() > 1:
            plans = _plans_of_every_run(my_index, golden_index, rules, ids, plans)
    return scenario, plans, my_index, golden_index, quant_skipped


def _plans_of_every_run(
    my_index: DumpIndex,
    golden_index: DumpIndex,
    rules: Tuple[Optional[FusionMap], Optional[FusionMap], Optional[FusionMap]],
    ids: Optional[Sequence[int]],
    newest_plans: List[OpPlan],
) -> List[OpPlan]:
    """Plans for each run k of the ops (``--all``). Row numbers are those of the newest-file plans,
    so an op keeps its Index in every run; ops missing from my side are reported in run 0 only."""
    number_of = {op_plan.op_name: (op_plan.index, op_plan.op_sequence) for op_plan in newest_plans}
    plans: List[OpPlan] = []
    for k in range(my_index.occurrences()):
        _, run_plans, _ = plan_comparison(
            my_index.occurrence(k), golden_index.occurrence(k, newest_when_missing=True), *rules, ids
        )
        for op_plan in run_plans:
            if op_plan.my_path is None and k > 0:
                continue
            index, op_sequence = number_of.get(op_plan.op_name, (op_plan.index, op_plan.op_sequence))
            plans.append(replace(op_plan, index=index, op_sequence=op_sequence, run=k, numbered=True))
    plans.sort(key=lambda op_plan: (op_plan.run, op_plan.index))
    return plans


def is_quantized_run(my_index: DumpIndex, fusion_rule: Optional[FusionMap], quant_fusion_rule: Optional[FusionMap]) -> bool:
    """My side ran a quantized model: a quant rule was given, its graph quantizes, or its dump
    names quant ops. The default verdict then judges its float tensors by the int8 row."""
    if quant_fusion_rule is not None or my_index.is_quant:
        return True
    return fusion_rule is not None and any(op.type in QUANTIZE_OP_TYPES for op in fusion_rule.ops)


def unused_dump_notes(
    my_index: DumpIndex, plans: Sequence[OpPlan], all_occurrences: bool = False, quant_skipped: AbstractSet[str] = frozenset()
) -> List[str]:
    """What the plans leave out of my side's dumps, counted: ops the quant filter skipped (op names
    in `quant_skipped`), ops the fusion rule does not name, and older dumps of compared ops (only
    the newest is compared without --all). Nothing is dropped without the report saying so."""
    used = {op_plan.my_path for op_plan in plans if op_plan.my_path} | {path for op_plan in plans for path in op_plan.my_slices}
    skipped_keys = {escape_op_name(name) for name in quant_skipped}
    foreign = older = filtered = filtered_ops = 0
    for key, versions in my_index.files.items():
        unused = sum(1 for name in versions if name.path not in used)
        if unused == len(versions) and key in skipped_keys:
            filtered += unused
            filtered_ops += 1
        elif unused == len(versions):
            foreign += unused
        else:
            older += unused
    notes = []
    if filtered:
        notes.append(f"{filtered} dump file(s) of {filtered_ops} op(s) that the quant filter skips (inside a quant/dequant pair) were not compared")
    if foreign:
        notes.append(f"{foreign} dump file(s) of ops that the fusion rule does not name were not compared")
    if older and not all_occurrences:
        notes.append(f"{older} older dump file(s) of compared ops were not compared (the newest is; --all compares every run)")
    return notes

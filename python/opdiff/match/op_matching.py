"""Matching: which golden tensor each tensor of each NPU dump is compared with
(docs/reference/reference-tool.md §2.5, §3.3-3.5, §4.5). Produces one OpPlan per compared op; the engine reads
the op's dump and expands the plan tensor by tensor. Nothing here reads tensor bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from opdiff.conventions.dump_names import NpuDumpName, escape_op_name
from opdiff.conventions.quant_names import is_dequant_op
from opdiff.conventions.reference_messages import (
    inner_node_skipped,
    invalid_input_reference,
    no_dump_for_my_op,
    no_ground_truth_for_key,
    no_ground_truth_for_tensor,
    no_my_dump_for_key,
)
from opdiff.dumps.discovery import DumpIndex, is_sliced
from opdiff.graph import FusionGroup, FusionMap, InputRef, Op, OutputDesc, QuantFilter, Relation
from opdiff.results.rows import TensorId

PASS_THROUGH_TYPES = ("Cast", "TransData")  # walked back to their producer (§2.5 step 4)
ANY_TO_MULTI = (Relation.ONE_TO_MULTI, Relation.MULTI_TO_MULTI)  # groups of several ops, not L1 fusion


@dataclass(frozen=True)
class OwnDesc:
    """The logical form my tensor's own output desc states, where matching walked back past its op
    to find the golden (a TransData or Cast): the dump's original shape is this desc's, so its
    origin format names the dump's axes, whatever the golden op's desc says."""

    format: Optional[str] = None  # `_datadump_origin_format`, else GE's `origin_format`
    ge_format: Optional[str] = None  # GE's `origin_format`, where `format` may say ND
    shape: Optional[Tuple[int, ...]] = None


@dataclass(frozen=True)
class GoldenTarget:
    """Where the partner of one tensor is, and the logical format/shape to compare it in.

    ``path`` None means no partner; ``reason`` says why. ``role``/``index`` address the tensor in the
    partner file (a golden .npy is one output). ``format``/``shape`` None: each side's default."""

    path: Optional[str]
    role: str = "output"
    index: int = 0
    format: Optional[str] = None
    shape: Optional[Tuple[int, ...]] = None
    reason: Optional[str] = None
    skip: bool = False  # not compared at all (quant exclusions): no row
    ge_format: Optional[str] = None  # GE's origin_format of the tensor, where `format` may say ND
    own: Optional[OwnDesc] = None  # my tensor's own desc, where it is not the golden op's


@dataclass(frozen=True)
class OpPlan:
    """One NPU op to compare: its row identity and the partner of each of its tensors."""

    index: int
    op_sequence: int
    op_type: str
    op_name: str  # for TensorIndex
    npu_dump: str  # the row's NPUDump text
    ground_truth: str  # the row's GroundTruth text
    my_path: Optional[str]
    inputs: Tuple[GoldenTarget, ...] = ()
    outputs: Tuple[GoldenTarget, ...] = ()
    missing_reasons: Tuple[str, ...] = ()  # when my_path is None: why (the CSV joins them with ",")
    positional_partner: Optional[str] = None  # NPU vs NPU: the partner dump, tensors paired by position
    my_slices: Tuple[str, ...] = ()  # FFTS+: every slice file of the op, in thread order (§2.6)
    run: int = 0  # which dump of the op (--all compares each)
    numbered: bool = False  # under --all: the op's rows and messages name it "op#run"

    @property
    def label(self) -> str:
        """The op as rows and messages name it: ``op_name``, or ``op_name#run`` under --all."""
        return f"{self.op_name}#{self.run}" if self.numbered else self.op_name

    def tensor(self, role: Optional[str] = None, index: Optional[int] = None) -> TensorId:
        """The identity of this op's tensor `role` `index` (no role: a row about the whole op)."""
        return TensorId(self.op_name, role, index, self.run if self.numbered else None)

    def input_target(self, k: int) -> GoldenTarget:
        if self.positional_partner is not None:
            return GoldenTarget(self.positional_partner, "input", k)
        if k < len(self.inputs):
            return self.inputs[k]
        return GoldenTarget(None, reason=f"[{self.label}] the fusion rule has no input {k} for this op")

    def output_target(self, k: int) -> GoldenTarget:
        if self.positional_partner is not None:
            return GoldenTarget(self.positional_partner, "output", k)
        # The reference uses the first output desc when the dump has more outputs than the rule.
        if k < len(self.outputs):
            return self.outputs[k]
        if self.outputs:
            return self.outputs[0]
        return GoldenTarget(None, reason=f"[{self.label}] the fusion rule has no output {k} for this op")


# ---------------------------------------------------------------- NPU vs golden, with a fusion rule


@dataclass(frozen=True)
class _GoldenLookup:
    """Finds partner files: golden .npy by "{name}.{index}", or NPU dumps of the fusion-off model."""

    index: DumpIndex
    by_op_dump: bool  # FUSION_ON_VS_OFF: the golden side is NPU dumps named by op

    def find(self, origin_name: str, output_index: int) -> Tuple[Optional[str], str, int]:
        name = escape_op_name(origin_name)
        if self.by_op_dump:
            found = self.index.newest(name)
            return (found.path if found else None, "output", output_index)
        found = self.index.newest(f"{name}.{output_index}")
        return (found.path if found else None, "output", 0)


def _walk_pass_through(fm: FusionMap, op: Op, output_index: int) -> Tuple[Op, int]:
    """Cast/TransData do not exist in the framework graph: compare against what feeds them."""
    seen = set()
    while op.type in PASS_THROUGH_TYPES and op.name not in seen:
        seen.add(op.name)
        if output_index >= len(op.inputs):
            break
        ref = op.inputs[output_index]
        producer = fm.producer(ref)
        if producer is None:
            break
        op, output_index = producer, ref.index
    return op, output_index


def _desc_of(op: Op, output_index: int) -> Tuple[Optional[OutputDesc], int]:
    if not op.output_descs:
        return None, output_index
    desc = op.output_descs[output_index] if output_index < len(op.output_descs) else op.output_descs[0]
    return desc, output_index


def _no_ground_truth(label: str, tensor: str) -> GoldenTarget:
    # The reference's wording names my tensor, whether the origin name is empty or the file missing.
    return GoldenTarget(None, reason=no_ground_truth_for_tensor(label, tensor))


def _own_desc(op: Op, k: int, source: Op) -> Optional[OwnDesc]:
    """The desc of `op`'s output `k` when the golden is `source`'s (walked back): None when the two
    are the same op, or `op` has no desc."""
    own, _ = _desc_of(op, k)
    if source is op or own is None:
        return None
    return OwnDesc(own.origin_format or None, own.ge_origin_format or None, own.origin_shape or None)


def _target_for_output(fm: FusionMap, op: Op, k: int, lookup: _GoldenLookup, label: str, tensor: str) -> GoldenTarget:
    source, position = _walk_pass_through(fm, op, k)
    desc, position = _desc_of(source, position)
    if desc is None or not desc.origin_name:
        return _no_ground_truth(label, tensor)
    origin_index = desc.origin_output_index if desc.origin_output_index is not None else position
    path, role, index = lookup.find(desc.origin_name, origin_index)
    if path is None:
        unreadable = lookup.index.unreadable.get(f"{escape_op_name(desc.origin_name)}.{origin_index}")
        if unreadable is not None:  # a golden exported from a tfdbg root: its tensor could not be read
            return GoldenTarget(None, reason=f"{no_ground_truth_for_tensor(label, tensor)} {unreadable}")
        return _no_ground_truth(label, tensor)
    return GoldenTarget(path, role, index, desc.origin_format or None, desc.origin_shape or None,
                        ge_format=desc.ge_origin_format or None, own=_own_desc(op, k, source))


def _target_for_input(fm: FusionMap, op: Op, ref: InputRef, lookup: _GoldenLookup, label: str, tensor: str) -> GoldenTarget:
    if ":" in ref.producer:  # the reference accepts "name:index" with exactly one colon
        return GoldenTarget(None, reason=invalid_input_reference(str(ref)))
    producer = fm.producer(ref)
    if producer is None:
        return GoldenTarget(None, reason=f"[{label}] The input {ref} comes from an op the fusion rule does not have.")
    return _target_for_output(fm, producer, ref.index, lookup, label, tensor)


def _is_inner_node(op: Op) -> bool:
    return op.is_multiop and all(not desc.origin_name for desc in op.output_descs)


def _ground_truth_text(ops: Sequence[Op], distinct: bool) -> str:
    """The GroundTruth cell: a group's distinct original names, or one op's names as listed (the
    reference keeps repeats there, e.g. "Transpose_0,Transpose_0"); "*" when there are none."""
    names: List[str] = []
    for op in ops:
        for name in op.original_names:
            if name and not (distinct and name in names):
                names.append(name)
    return ",".join(names) if names else "*"


def plan_with_fusion_rule(
    fm: FusionMap,
    my_index: DumpIndex,
    golden_index: DumpIndex,
    skipped: QuantFilter,
    *,
    golden_is_npu: bool = False,
    ids: Optional[Sequence[int]] = None,
) -> List[OpPlan]:
    """Plans for NPU vs golden (`-f`), quantized (`-f -q`, after merge_quant_rule) and fusion on vs
    off (`-f -cf`, after merge_close_fusion; then `golden_is_npu`). `skipped` is `fm`'s quant filter
    (graph.quant_filter: the caller reports what it skipped); `ids` limits the ops to those
    fusion-rule ids (`-r` / `-s`)."""
    lookup = _GoldenLookup(golden_index, golden_is_npu)
    plans: List[OpPlan] = []
    for group in fm.groups:
        members = [fm.op(name) for name in group.op_names]
        chosen = [op for op in members if ids is None or op.id in ids]
        if group.relation in ANY_TO_MULTI:
            plans += _plans_of_any_to_multi(fm, group, members, chosen, skipped, my_index, lookup)
            continue
        selected = [op for op in chosen if not skipped.is_skipped(op.name)]
        l1 = group.relation is Relation.L1_FUSION
        label = ",".join(group.op_names) if l1 else None
        for op in selected:
            if l1 and _is_inner_node(op):
                continue
            ground_truth = _ground_truth_text(members, distinct=True) if l1 else _ground_truth_text([op], distinct=False)
            found = my_index.newest(escape_op_name(op.name))
            if found is None:
                plans.append(OpPlan(group.index, op.id, op.type, op.name, label or op.name, ground_truth, None,
                                    missing_reasons=(no_dump_for_my_op(op.name, op.type),)))
            else:
                plans.append(_compared_plan(fm, group.index, op, label or op.name, ground_truth, found.path, my_index, lookup))
    return plans


def _plans_of_any_to_multi(
    fm: FusionMap, group: FusionGroup, members: Sequence[Op], chosen: Sequence[Op], skipped: QuantFilter, my_index: DumpIndex,
    lookup: _GoldenLookup,
) -> List[OpPlan]:
    """A group of several NPU ops (one-to-multi or multi-to-multi), as the reference writes it
    (docs/reference/reference-tool.md §3.3): a row for each member that has a dump, and nothing
    for the others; when no member has one, a single row for the group's first op whose reasons
    are every member's (an inner node is skipped, a member has no dump file; a member the quant
    filter skips says nothing, so a group of such members is a row without a reason)."""
    if not chosen:  # -r / -s left none of the group
        return []
    label, ground_truth = ",".join(group.op_names), _ground_truth_text(members, distinct=True)
    plans: List[OpPlan] = []
    reasons: List[str] = []
    for op in chosen:
        if skipped.is_skipped(op.name):
            continue
        if _is_inner_node(op):
            reasons.append(inner_node_skipped(op.name))
            continue
        found = my_index.newest(escape_op_name(op.name))
        if found is None:
            reasons.append(no_dump_for_my_op(op.name, op.type))
        else:
            plans.append(_compared_plan(fm, group.index, op, label, ground_truth, found.path, my_index, lookup))
    if plans:
        return plans
    first = members[0]
    return [OpPlan(group.index, first.id, first.type, first.name, label, ground_truth, None, missing_reasons=tuple(reasons))]


def _compared_plan(
    fm: FusionMap, index: int, op: Op, label: str, ground_truth: str, my_path: str, my_index: DumpIndex, lookup: _GoldenLookup
) -> OpPlan:
    """The plan of an op that has a dump: the partner of each of its tensors."""
    dequant = is_dequant_op(op.name, op.type)
    inputs = tuple(
        GoldenTarget(None, skip=True) if dequant else _target_for_input(fm, op, ref, lookup, op.name, f"{op.name}:input:{k}")
        for k, ref in enumerate(op.inputs)
    )
    outputs = tuple(
        GoldenTarget(None, skip=True) if op.type == "AscendQuant" else _target_for_output(fm, op, k, lookup, op.name, f"{op.name}:output:{k}")
        for k in range(max(1, len(op.output_descs)))
    )
    return OpPlan(index, op.id, op.type, op.name, label, ground_truth, my_path, inputs, outputs,
                  my_slices=slice_files(my_index, escape_op_name(op.name)))


def slice_files(index: DumpIndex, key: str) -> Tuple[str, ...]:
    """The slice files of an FFTS+ op in thread order, or () when the op was not sliced."""
    versions = index.files.get(key, [])
    return tuple(v.path for v in versions) if is_sliced(versions) and len(versions) > 1 else ()


# ---------------------------------------------------------------- NPU vs NPU, by op name


def plan_by_op_name(my_index: DumpIndex, golden_index: DumpIndex) -> List[OpPlan]:
    """Plans for NPU vs NPU without fusion rules: ops matched by name, numbered in the time order of
    the `-m` side, then ops only the golden side has (§4.5). Tensors pair up by position."""
    keys = my_index.keys_in_time_order()
    keys += [key for key in golden_index.keys_in_time_order() if key not in my_index.files]
    plans: List[OpPlan] = []
    for number, key in enumerate(keys):
        mine, theirs = my_index.newest(key), golden_index.newest(key)
        # An op on one side only is one row, as the reference writes it: no op type, no tensors.
        if mine is None:
            reason = no_my_dump_for_key(key)
            plans.append(OpPlan(number, number, "NaN", key, "*", key, None, missing_reasons=(reason,)))
            continue
        if theirs is None:
            reason = no_ground_truth_for_key(key)
            plans.append(OpPlan(number, number, "NaN", key, key, "*", None, missing_reasons=(reason,)))
            continue
        assert isinstance(mine, NpuDumpName), "NPU vs NPU: both indexes hold NPU dump names"
        plans.append(OpPlan(number, number, mine.op_type, key, key, key, mine.path, positional_partner=theirs.path))
    return plans


__all__ = ["GoldenTarget", "OpPlan", "plan_by_op_name", "plan_with_fusion_rule"]

"""Grouping NPU ops into fusion groups and naming their relation (docs/reference/reference-tool.md §3.3)."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Dict, Iterable, List, Sequence, Tuple

from opdiff.graph.fusion_map import FusionGroup, FusionMap, Op, OutputDesc, Relation, new_fusion_group


def group_key(op: Op) -> str:
    """The "fusion op name" of `op`: L1 sub-graph no., else its one original name, else a uuid3.

    >>> group_key(Op("conv_relu", "Conv2D", original_names=("conv", "relu")))
    '5cada017-ba1c-31bd-bf5b-f88d1fc95fa6'
    """
    if op.l1_fusion_sub_graph_no:
        return op.l1_fusion_sub_graph_no
    names = op.original_names
    if len(names) == 1:
        return names[0] or op.name
    if len(names) >= 2:
        return uuid3_text("".join(names))
    return op.name


_DNS_NAMESPACE = bytes.fromhex("6ba7b8109dad11d180b400c04fd430c8")  # uuid.NAMESPACE_DNS (RFC 4122 appendix C)


def uuid3_text(name: str) -> str:
    """`str(uuid.uuid3(uuid.NAMESPACE_DNS, name))`, without building a UUID object (a third of the
    grouping time of a model with many fused ops went into UUID's constructor).

    >>> import uuid
    >>> uuid3_text("convrelu") == str(uuid.uuid3(uuid.NAMESPACE_DNS, "convrelu"))
    True
    """
    digest = bytearray(hashlib.md5(_DNS_NAMESPACE + name.encode("utf-8"), usedforsecurity=False).digest())
    digest[6] = (digest[6] & 0x0F) | 0x30  # version 3 (RFC 4122 §4.3)
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = digest.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def relation_of(members: Sequence[Op]) -> Relation:
    """The relation of a group, decided by its size and its first op.

    >>> relation_of([Op("a", "Add", original_names=("a", "b"))]).value
    'MultiToOne'
    """
    first = members[0]
    if len(members) == 1:
        return Relation.ONE_TO_ONE if len(first.original_names) == 1 else Relation.MULTI_TO_ONE
    if first.l1_fusion_sub_graph_no:
        return Relation.L1_FUSION
    if len(first.original_names) == 1:
        return Relation.ONE_TO_MULTI
    return Relation.MULTI_TO_MULTI


def build_fusion_map(
    name: str,
    graphs: Iterable[Tuple[str, Sequence[Op]]],
    *,
    warnings: Sequence[str] = (),
    source: str = "",
) -> FusionMap:
    """Group the ops of `graphs` (in order) into a FusionMap.

    After each graph, an op alone in its group whose key is its one original name gets its empty
    output origin names filled with that name (msaccucmp's "rename node").

    >>> fm = build_fusion_map("m", [("g", [Op("c1", "Conv2D", original_names=("conv", "relu"))])])
    >>> fm.groups[0].relation.value, fm.groups[0].index
    ('MultiToOne', 0)
    """
    ops: List[Op] = []
    graph_names: List[str] = []
    members: Dict[str, List[int]] = {}  # insertion order = order of first appearance = Index
    for graph_name, graph_ops in graphs:
        graph_names.append(graph_name)
        touched: List[str] = []
        for op in graph_ops:
            if op.graph != graph_name:
                op = replace(op, graph=graph_name)
            key = group_key(op)
            touched.append(key)
            positions = members.get(key)
            if positions is None:
                members[key] = [len(ops)]
            else:
                positions.append(len(ops))
            ops.append(op)
        # Groups only grow, so only groups this graph touched can be newly lone.
        _fill_rename_nodes(ops, members, touched)
    groups = tuple([_make_group(key, index, positions, ops) for index, (key, positions) in enumerate(members.items())])
    return FusionMap(name, tuple(graph_names), tuple(ops), groups, tuple(warnings) + _duplicate_notes(ops), source)


def _duplicate_notes(ops: Sequence[Op]) -> Tuple[str, ...]:
    seen: Dict[str, None] = {}
    duplicates = [op.name for op in ops if op.name in seen or seen.setdefault(op.name, None)]
    if not duplicates:
        return ()
    shown = ", ".join(repr(name) for name in dict.fromkeys(duplicates) if name)[:200]
    return (f"{len(duplicates)} ops share a name with an earlier op (lookups by name give the first): {shown}",)


def regroup(fusion_map: FusionMap, ops: Sequence[Op], warnings: Sequence[str] = ()) -> FusionMap:
    """A FusionMap of `ops` (same graphs and name as `fusion_map`), grouped afresh."""
    by_graph: Dict[str, List[Op]] = {graph: [] for graph in fusion_map.graphs}
    for op in ops:
        by_graph.setdefault(op.graph, []).append(op)
    return build_fusion_map(
        fusion_map.name,
        list(by_graph.items()),
        warnings=tuple(fusion_map.warnings) + tuple(warnings),
        source=fusion_map.source,
    )


def _fill_rename_nodes(ops: List[Op], members: Dict[str, List[int]], keys: Iterable[str]) -> None:
    for key in keys:
        positions = members[key]
        if len(positions) != 1:
            continue
        op = ops[positions[0]]
        names = op.original_names
        if len(names) == 1 and names[0] == key:
            for desc in op.output_descs:
                if not desc.origin_name:
                    ops[positions[0]] = replace(op, output_descs=tuple(_named(desc, key) for desc in op.output_descs))
                    break


def _named(desc: OutputDesc, name: str) -> OutputDesc:
    return desc if desc.origin_name else replace(desc, origin_name=name)


def _make_group(key: str, index: int, positions: Sequence[int], ops: Sequence[Op]) -> FusionGroup:
    if len(positions) == 1:
        only = ops[positions[0]]
        names = only.original_names
        if len(names) == 1:
            return new_fusion_group(key, index, (only.name,), Relation.ONE_TO_ONE, names)
        return new_fusion_group(key, index, (only.name,), Relation.MULTI_TO_ONE, tuple(dict.fromkeys(names)))
    members = [ops[i] for i in positions]
    distinct: Dict[str, None] = {}
    for op in members:
        for original in op.original_names:
            distinct.setdefault(original, None)
    return new_fusion_group(key, index, tuple(op.name for op in members), relation_of(members), tuple(distinct))

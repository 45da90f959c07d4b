"""Fusion on vs off: mapping the open-fusion rule onto the close-fusion rule's ops (`-cf`, docs/reference/reference-tool.md §3.5)."""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Optional

from opdiff.graph.fusion_map import FusionGroup, FusionMap, Op, OutputDesc


def merge_close_fusion(open_map: FusionMap, close_map: FusionMap) -> FusionMap:
    """`open_map` with provenance expressed in the fusion-off model's op names; grouping kept.

    Original names become the close-rule ops they belong to; each output desc names that close op
    and, as its index, the position of the close op's desc with the same (origin name, origin index).
    Names the close rule does not know stay, with a warning.

    >>> from opdiff.graph.grouping import build_fusion_map
    >>> from opdiff.graph.provenance import make_op
    >>> from opdiff.graph.fusion_map import OutputDesc
    >>> off = build_fusion_map("off", [("g", [make_op("conv", "Conv2D"), make_op("relu", "Relu")])])
    >>> on = build_fusion_map("on", [("g", [make_op("cr", "Conv2D", original_names=["conv", "relu"],
    ...                                              output_descs=[OutputDesc("relu", 0)])])])
    >>> merged = merge_close_fusion(on, off).op("cr")
    >>> merged.original_names, merged.output_descs[0].origin_name
    (('conv', 'relu'), 'relu')
    """
    close_op_of: Dict[str, str] = {}
    for op in close_map.ops:
        for name in op.original_names:
            if name:
                close_op_of[name] = op.name  # later ops win, as a plain mapping built in op order does
    warnings: List[str] = []
    ops = [_mapped(op, close_map, close_op_of, warnings) for op in open_map.ops]
    groups = tuple(_regathered(group, {op.name: op for op in ops}) for group in open_map.groups)
    return FusionMap(
        open_map.name, open_map.graphs, tuple(ops), groups, tuple(open_map.warnings) + tuple(warnings), open_map.source
    )


def _mapped(op: Op, close_map: FusionMap, close_op_of: Dict[str, str], warnings: List[str]) -> Op:
    names = []
    for name in op.original_names:
        if name and name not in close_op_of:
            warnings.append(f"op {op.name!r}: original name {name!r} is not in the close-fusion rule")
        names.append(close_op_of.get(name, name))
    descs = tuple(_mapped_desc(op.name, desc, close_map, close_op_of, warnings) for desc in op.output_descs)
    return replace(op, original_names=tuple(names), output_descs=descs)


def _mapped_desc(
    op_name: str, desc: OutputDesc, close_map: FusionMap, close_op_of: Dict[str, str], warnings: List[str]
) -> OutputDesc:
    close_name = close_op_of.get(desc.origin_name) if desc.origin_name else None
    if close_name is None:
        return desc
    position = _position(close_map.op(close_name), desc)
    if position is None:
        warnings.append(
            f"op {op_name!r}: close-fusion op {close_name!r} has no output for {desc.origin_name}:{desc.origin_output_index}"
        )
        return replace(desc, origin_name=close_name)
    return replace(desc, origin_name=close_name, origin_output_index=position)


def _position(close_op: Op, desc: OutputDesc) -> Optional[int]:
    for k, close_desc in enumerate(close_op.output_descs):
        if (close_desc.origin_name, close_desc.origin_output_index) == (desc.origin_name, desc.origin_output_index):
            return k
    return None


def _regathered(group: FusionGroup, ops: Dict[str, Op]) -> FusionGroup:
    distinct: Dict[str, None] = {}
    for name in group.op_names:
        for original in ops[name].original_names:
            distinct.setdefault(original, None)
    return replace(group, original_names=tuple(distinct))

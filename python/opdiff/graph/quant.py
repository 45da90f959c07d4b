"""Quantised models: merging the quant fusion rule (`-q`) and the quant filter (docs/reference/reference-tool.md §3.4)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Dict, FrozenSet, List, Mapping, Optional, Tuple

from opdiff.conventions.quant_names import DEQUANT_FILTER_PATTERN, QUANT_FILTER_MARK, QUANT_FILTER_PATTERN
from opdiff.graph.fusion_map import FusionMap, Op, OutputDesc
from opdiff.graph.grouping import regroup


def merge_quant_rule(offline: FusionMap, quant: FusionMap) -> FusionMap:
    """`offline` with its provenance mapped through the quant rule back to the float model, regrouped.

    Each original name that is an op of `quant` becomes the original names of that op's fusion group;
    each output desc naming a `quant` op becomes that op's desc at its origin index (all of them when
    the index is None), keeping the offline format, shape and dtype where set.

    >>> from opdiff.graph.grouping import build_fusion_map
    >>> from opdiff.graph.provenance import make_op
    >>> q = build_fusion_map("q", [("g", [make_op("conv1_quant", "Conv2D", original_names=["conv1"])])])
    >>> o = build_fusion_map("o", [("g", [make_op("c", "Conv2D", original_names=["conv1_quant"])])])
    >>> merge_quant_rule(o, q).op("c").original_names
    ('conv1',)
    """
    warnings: List[str] = []
    ops = [_merged_op(op, quant, warnings) for op in offline.ops]
    return regroup(offline, ops, warnings)


def _merged_op(op: Op, quant: FusionMap, warnings: List[str]) -> Op:
    names: Dict[str, None] = {}
    for name in op.original_names:
        source = quant.get(name) if name else None
        for mapped in quant.group_of(source.name).original_names if source else (name,):
            names.setdefault(mapped, None)
    descs: List[OutputDesc] = []
    for desc in op.output_descs:
        source = quant.get(desc.origin_name) if desc.origin_name else None
        if source is None:
            descs.append(desc)
        elif desc.origin_output_index is None:
            descs.extend(_keep_offline_layout(quant_desc, desc) for quant_desc in source.output_descs)
        elif desc.origin_output_index < len(source.output_descs):
            descs.append(_keep_offline_layout(source.output_descs[desc.origin_output_index], desc))
        else:
            warnings.append(f"op {op.name!r}: quant rule op {source.name!r} has no output {desc.origin_output_index}")
            descs.append(desc)
    return replace(op, original_names=tuple(names), output_descs=tuple(descs))


def _keep_offline_layout(quant_desc: OutputDesc, offline_desc: OutputDesc) -> OutputDesc:
    return OutputDesc(
        origin_name=quant_desc.origin_name,
        origin_output_index=quant_desc.origin_output_index,
        origin_format=offline_desc.origin_format or quant_desc.origin_format,
        origin_shape=offline_desc.origin_shape if offline_desc.origin_shape is not None else quant_desc.origin_shape,
        dtype=offline_desc.dtype or quant_desc.dtype,
        ge_origin_format=offline_desc.ge_origin_format or quant_desc.ge_origin_format,
    )


class QuantNameKind(Enum):
    """What an op's name says about its role in a quant/dequant pair."""

    NONE = "none"
    QUANT = "quant"
    DEQUANT = "dequant"


class QuantOutputKind(Enum):
    """The role of one output: leaving a quant op, inside a pair, or leaving a dequant op."""

    NORMAL = "normal"
    QUANT = "quant"
    MIDDLE = "middle"
    DEQUANT = "dequant"


@dataclass(frozen=True)
class QuantFilter:
    """Result of the quant filter: ops inside a quant/dequant pair are not compared."""

    skipped_ops: FrozenSet[str]
    output_kinds: Mapping[str, Tuple[QuantOutputKind, ...]]

    def is_skipped(self, op_name: str) -> bool:
        """True when the compare must skip `op_name` (msaccucmp's `quant_filter=True`)."""
        return op_name in self.skipped_ops


def quant_name_kind(op: Op) -> QuantNameKind:
    """Quant or dequant by the op name or its concatenated original names (dequant patterns first,
    since `_anti_quant_layer` also contains `_quant_layer`).

    >>> from opdiff.graph.provenance import make_op
    >>> quant_name_kind(make_op("conv1_anti_quant_layer", "AntiQuant")).value
    'dequant'
    """
    kinds = {quant_text_kind(op.name), quant_text_kind("".join(op.original_names))}
    for kind in (QuantNameKind.DEQUANT, QuantNameKind.QUANT):
        if kind in kinds:
            return kind
    return QuantNameKind.NONE


def quant_text_kind(text: str) -> QuantNameKind:
    """What the quant filter reads in one name: producers use it to name ops the filter must not
    take for Ascend quant layers (ONNX Runtime's ``layer.weight_quantized`` reads as one).

    >>> quant_text_kind("layer.weight_quantized").value, quant_text_kind("layer_weight_quantized").value
    ('quant', 'none')
    """
    if QUANT_FILTER_MARK not in text:  # most names: no pattern can match (tests/graph check the mark)
        return QuantNameKind.NONE
    if DEQUANT_FILTER_PATTERN.search(text):
        return QuantNameKind.DEQUANT
    if QUANT_FILTER_PATTERN.search(text):
        return QuantNameKind.QUANT
    return QuantNameKind.NONE


def quant_filter(fusion_map: FusionMap) -> QuantFilter:
    """Mark ops fed by a quant op's int8 output (directly or through other in-pair ops).

    Walking in execution order: an output is QUANT when a quant-named op emits DT_INT8, DEQUANT when
    a dequant-named op emits DT_FLOAT16, MIDDLE when its op is in a pair, else NORMAL. An op is in a
    pair when any input comes from a QUANT or MIDDLE output; it is skipped unless all its outputs
    are DEQUANT.

    >>> from opdiff.graph.grouping import build_fusion_map
    >>> from opdiff.graph.provenance import make_op
    >>> from opdiff.graph.fusion_map import OutputDesc
    >>> int8, fp16 = OutputDesc("", 0, dtype="DT_INT8"), OutputDesc("", 0, dtype="DT_FLOAT16")
    >>> fm = build_fusion_map("q", [("g", [
    ...     make_op("c_quant_layer", "AscendQuant", output_descs=[int8]),
    ...     make_op("c", "Conv2D", inputs=["c_quant_layer:0"], output_descs=[int8]),
    ...     make_op("c_dequant_layer", "AscendDequant", inputs=["c:0"], output_descs=[fp16])])])
    >>> sorted(quant_filter(fm).skipped_ops)
    ['c']
    """
    kinds: Dict[str, Tuple[QuantOutputKind, ...]] = {}
    skipped = set()
    for name in fusion_map.execution_order:
        op = fusion_map.op(name)
        in_pair = any(_input_kind(kinds, ref.producer, ref.index) in (QuantOutputKind.QUANT, QuantOutputKind.MIDDLE) for ref in op.inputs)
        name_kind = quant_name_kind(op)
        outputs = tuple(_output_kind(name_kind, desc.dtype, in_pair) for desc in op.output_descs)
        kinds[name] = outputs
        if in_pair and not (outputs and all(kind is QuantOutputKind.DEQUANT for kind in outputs)):
            skipped.add(name)
    return QuantFilter(frozenset(skipped), kinds)


def _input_kind(kinds: Mapping[str, Tuple[QuantOutputKind, ...]], producer: str, index: int) -> Optional[QuantOutputKind]:
    outputs = kinds.get(producer, ())
    return outputs[index] if index < len(outputs) else None


def _output_kind(name_kind: QuantNameKind, dtype: str, in_pair: bool) -> QuantOutputKind:
    if name_kind is QuantNameKind.QUANT and dtype == "DT_INT8":
        return QuantOutputKind.QUANT
    if name_kind is QuantNameKind.DEQUANT and dtype == "DT_FLOAT16":
        return QuantOutputKind.DEQUANT
    return QuantOutputKind.MIDDLE if in_pair else QuantOutputKind.NORMAL

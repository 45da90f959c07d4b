"""Which source-model tensor each input and output of an NPU op stands for, through the fusion rule:
the producer's output desc (``_datadump_origin_name`` / ``_datadump_origin_output_index``), through
inserted Cast and TransData ops, and Data ops for model inputs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Set, Tuple

from opdiff.graph import FusionMap, InputRef, Op, OutputDesc
from opdiff.isolate.source_graph import SourceGraph

# Ops a device graph inserts that change a tensor's dtype or layout, not its values' meaning.
PASS_THROUGH_TYPES = frozenset({"Cast", "TransData", "TransDataRNN", "Identity"})


@dataclass(frozen=True)
class InputSource:
    """What input k of an NPU op is: a source-model tensor, a weight (a Const op: the model's own
    initializer stands for it), or unmapped."""

    tensor: Optional[str] = None
    weight: bool = False


def input_source(fusion_map: FusionMap, model: SourceGraph, ref: InputRef) -> InputSource:
    """The source of the tensor `ref` (an NPU op's data input)."""
    seen: Set[Tuple[str, int]] = set()
    while (ref.producer, ref.index) not in seen:
        seen.add((ref.producer, ref.index))
        producer = fusion_map.producer(ref)
        if producer is None:
            return InputSource()
        tensor = desc_tensor(producer, ref.index, model)
        if producer.type == "Const":  # a weight, or a folded constant that was a tensor of the model
            return InputSource(tensor, weight=tensor is None)
        if producer.type == "Data":
            return InputSource(tensor or model.inputs_by_data_op.get(producer.name))
        if tensor is not None:
            return InputSource(tensor)
        if producer.type not in PASS_THROUGH_TYPES or not producer.inputs:
            return InputSource()
        ref = producer.inputs[0]
    return InputSource()


def desc_tensor(op: Op, position: int, model: SourceGraph) -> Optional[str]:
    """The source tensor output `position` of `op` stands for, by its output desc; None without one."""
    if position >= len(op.output_descs):
        return None
    desc = op.output_descs[position]
    if not desc.origin_name:
        return None
    return model.tensor_of(desc.origin_name, desc.origin_output_index or 0)


def producer_desc(fusion_map: FusionMap, ref: InputRef) -> Optional[OutputDesc]:
    """The output desc of the tensor `ref` reads (its producer's output), None without one."""
    producer = fusion_map.producer(ref)
    if producer is None or not 0 <= ref.index < len(producer.output_descs):
        return None
    return producer.output_descs[ref.index]

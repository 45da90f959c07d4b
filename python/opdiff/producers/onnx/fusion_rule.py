"""A fusion rule (atc --mode=1 shaped, docs/reference/reference-tool.md §3.2) for a rewritten ONNX graph, from
its recovered lineage; written with opdiff.graph's exporter and read back by ``opdiff.read_graph``.

Ops, in this order: one ``Data`` op per graph input (named as the golden run names it, so its
output desc points at the golden input file), one ``Const`` op per initializer a node reads (no dump
file; origin name empty, as no golden file holds weights, unless constant folding turned an
original node's output into it), then every node in graph order. Inputs are ``producer:index`` with
``index`` counting the producer's non-empty outputs, the order of the dump file's outputs.
"""

from __future__ import annotations

from typing import Dict, Mapping, Optional

import numpy as np

from opdiff.conventions.dump_names import escape_op_name
from opdiff.graph import FusionMap, OutputDesc
from opdiff.graph.grouping import build_fusion_map
from opdiff.graph.provenance import make_op
from opdiff.graph.quant import QuantNameKind, quant_text_kind
from opdiff.producers.file_names import file_safe_name
from opdiff.producers.golden_writer import TensorOrigin
from opdiff.producers.onnx.lineage import Lineage
from opdiff.producers.onnx.support import OnnxModel
from opdiff.producers.rule_dtypes import dtype_name


def origin_format(array: Optional[np.ndarray]) -> str:
    """The framework layout of a tensor: NCHW for 4-D, ND otherwise (ONNX is channels-first)."""
    return "NCHW" if array is not None and array.ndim == 4 else "ND"


def _desc(origin: Optional[TensorOrigin], position: int, array: Optional[np.ndarray]) -> OutputDesc:
    shape = tuple(int(d) for d in array.shape) if array is not None else None
    if origin is None:
        return OutputDesc("", position, origin_format(array), shape, dtype_name(array))
    return OutputDesc(origin.op, origin.index, origin_format(array), shape, dtype_name(array))


def const_op_name(initializer: str) -> str:
    """The Const op name of an initializer: file-safe, and never one the quant filter reads as an
    Ascend quant layer. ONNX Runtime's quantizer names a PyTorch weight's int8 copy
    ``layer.weight_quantized``, which matches the filter's ``.weight_quant``: the filter would
    then skip the weight's DequantizeLinear and every op downstream of it. Escaping ``.``/``/``
    takes such names out of the pattern (Const ops have no dump file, so the name is the rule's own).

    >>> const_op_name("encoder.conv1.weight_quantized"), const_op_name("encoder.conv1.weight")
    ('encoder_conv1_weight_quantized', 'encoder.conv1.weight')
    """
    name = file_safe_name(initializer)
    return name if quant_text_kind(name) is QuantNameKind.NONE else escape_op_name(name)


def const_op_names(rewritten: OnnxModel, taken: Mapping[str, None]) -> Dict[str, str]:
    """Initializer -> the name of its Const op (:func:`const_op_name`, distinct from node and input op names)."""
    used = {tensor for node in rewritten.graph.node for tensor in node.input}
    names: Dict[str, str] = {}
    seen = dict(taken)
    for init in rewritten.graph.initializer:
        if init.name not in used:
            continue
        name = base = const_op_name(init.name)
        suffix = 0
        while name in seen:
            suffix += 1
            name = f"{base}_{suffix}"
        seen[name] = None
        names[init.name] = name
    return names


def build_fusion_rule(
    model_name: str,
    rewritten: OnnxModel,
    rewritten_inputs: Mapping[str, str],
    lineage: Lineage,
    origins: Mapping[str, TensorOrigin],
    tensors: Mapping[str, np.ndarray],
) -> FusionMap:
    """The FusionMap of `rewritten` (a prepared model) with provenance from `lineage`.

    `tensors` are the rewritten run's values (dtype and shape of each output desc); `origins` the
    original graph's tensor origins (a folded constant that was an original tensor keeps its origin).
    """
    from onnx import numpy_helper

    taken = dict.fromkeys(rewritten_inputs.values())
    taken.update({node.name: None for node in rewritten.graph.node})
    consts = const_op_names(rewritten, taken)
    initializers = {init.name: init for init in rewritten.graph.initializer}
    refs: Dict[str, str] = {tensor: f"{op}:0" for tensor, op in rewritten_inputs.items()}
    refs.update({tensor: f"{op}:0" for tensor, op in consts.items()})
    for node in rewritten.graph.node:
        for k, tensor in enumerate(t for t in node.output if t):
            refs[tensor] = f"{node.name}:{k}"

    ops = []
    for tensor, op in rewritten_inputs.items():
        ops.append(make_op(op, "Data", original_names=[op], output_descs=[_desc(lineage.tensor_origins.get(tensor), 0, tensors.get(tensor))]))
    for tensor, op in consts.items():
        value = numpy_helper.to_array(initializers[tensor])
        origin = origins.get(tensor)
        ops.append(make_op(op, "Const", original_names=[origin.op] if origin else [], output_descs=[_desc(origin, 0, value)]))
    for node in rewritten.graph.node:
        node_lineage = lineage.nodes[node.name]
        outputs = [t for t in node.output if t]
        descs = [_desc(origin, k, tensors.get(t)) for k, (origin, t) in enumerate(zip(node_lineage.output_origins, outputs))]
        inputs = [refs.get(t, f"{file_safe_name(t)}:0") for t in node.input if t]
        ops.append(make_op(node.name, node.op_type, id_=len(ops), inputs=inputs, original_names=list(node_lineage.original_names), output_descs=descs))
    return build_fusion_map(model_name, [(model_name, ops)], source=model_name)


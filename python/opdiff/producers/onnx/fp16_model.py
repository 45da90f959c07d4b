"""An fp16 copy of an fp32 ONNX model: what a device that computes in half precision runs.

Float weights become fp16; float inputs stay fp32 and a ``Cast`` per input turns them to fp16 (as a
compiled device model converts its inputs); nodes compute and write fp16. A node whose operator
schema has no fp16 form for one of its float inputs, or whose type is in ``keep_fp32``, stays fp32
with Casts around it: its output keeps its name (and its golden) and a Cast writes the fp16 copy
the next nodes read. Tensor names of the original graph are kept, so fp16 tensors map to golden ones.

This is the graph a device holds; ONNX Runtime runs :meth:`Fp16Model.run_model` instead, which
rounds every op's output to fp16 (see :mod:`opdiff.producers.onnx.fp16_rounding`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Mapping, Optional, Set, Tuple

import numpy as np

from opdiff.producers.onnx.fp16_rounding import round_in_place, rounding_run_model
from opdiff.producers.onnx.support import OnnxGraph, OnnxModel, OnnxNode, OnnxTensor

FP16_SUFFIX = "__fp16"
FP32_SUFFIX = "__fp32"


@dataclass
class Fp16Model:
    """The converted model, the nodes kept in fp32 and the model's fp16 tensors.

    `model` is the graph as a device holds it (fp16 ops, saved as the run's model.onnx);
    :meth:`run_model` is the one to run with ONNX Runtime, which rounds every op's output.
    """

    model: OnnxModel
    kept_fp32: List[str] = field(default_factory=list)
    half_tensors: Set[str] = field(default_factory=set)

    def run_model(self) -> OnnxModel:
        """The graph ONNX Runtime must run for `model`'s values (see :mod:`.fp16_rounding`)."""
        return rounding_run_model(self.model, self.half_tensors, set(self.kept_fp32))

    def round_in_place(self, copy: OnnxModel) -> None:
        """:meth:`run_model` done on `copy`, a copy of `model` (the exposed copy a session runs)."""
        round_in_place(copy, self.half_tensors, set(self.kept_fp32))


def _opset(model: OnnxModel) -> int:
    return next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 13)


def _allows_fp16(node: OnnxNode, index: int, opset: int, is_output: bool = False) -> bool:
    """Whether input (or output) `index` of `node` may be fp16 per its schema (True when unknown)."""
    import onnx

    try:
        schema = onnx.defs.get_schema(node.op_type, opset, node.domain or "")
    except Exception:  # a custom domain or unknown op: assume it follows its inputs
        return True
    formals = schema.outputs if is_output else schema.inputs
    if not formals:
        return True
    formal = formals[min(index, len(formals) - 1)]
    allowed: Iterable[str] = [formal.type_str]
    for constraint in schema.type_constraints:
        if constraint.type_param_str == formal.type_str:
            allowed = constraint.allowed_type_strs
    return "tensor(float16)" in allowed


def convert_to_fp16(model: OnnxModel, keep_fp32: Iterable[str] = (), types: Optional[Mapping[str, str]] = None, *,
                    keep_nodes: Iterable[str] = ()) -> Fp16Model:
    """The fp16 copy of `model` (see the module notes); `keep_fp32` lists op types to keep in fp32,
    `keep_nodes` node names (a name that is not in the graph matches nothing).

    `types` (tensor -> ``"tensor(float)"`` etc., as :func:`opdiff.producers.onnx.runner.tensor_types`
    gives) says which tensors are float; without it onnx's shape inference decides, which does not
    know ONNX Runtime's fused ops.

    >>> import numpy as np
    >>> from onnx import helper, TensorProto, numpy_helper
    >>> w = numpy_helper.from_array(np.ones((2, 2), np.float32), "w")
    >>> g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "g",
    ...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])], [w])
    >>> m = convert_to_fp16(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])).model
    >>> [n.op_type for n in m.graph.node], m.graph.initializer[0].data_type == TensorProto.FLOAT16
    (['Cast', 'MatMul'], True)
    """
    plan = _plan(model, keep_fp32, types, set(keep_nodes))
    initializers, renamed_input = _convert_initializers(plan)
    nodes = _input_casts(plan, renamed_input)
    fp32_outputs = _convert_nodes(plan, renamed_input, nodes)
    converted = _assemble(model, nodes, initializers, fp32_outputs)
    return Fp16Model(converted, sorted(plan.fp32_nodes), _half_tensors(converted, plan))


def _half_tensors(converted: OnnxModel, plan: _Plan) -> Set[str]:
    """The fp16 tensors of the converted model: its fp16 weights, what its Casts to fp16 write,
    and the float outputs of the nodes that were not kept in fp32."""
    from onnx import TensorProto

    half = {init.name for init in converted.graph.initializer if init.data_type == TensorProto.FLOAT16}
    for node in converted.graph.node:
        if node.op_type == "Cast":
            if any(a.name == "to" and a.i == TensorProto.FLOAT16 for a in node.attribute):
                half.update(t for t in node.output if t)
        elif node.name not in plan.fp32_nodes:
            half.update(t for t in node.output if t in plan.float_tensors)
    return half


@dataclass
class _Plan:
    """What the conversion decides before it writes a node: which tensors are float, which nodes stay
    fp32, and who reads each tensor."""

    graph: OnnxGraph
    opset: int
    float_tensors: Set[str]
    initializers: Dict[str, OnnxTensor]
    fp32_nodes: Set[str]
    readers: Dict[str, List[Tuple[OnnxNode, int]]]

    def consumer_wants_fp16(self, node: OnnxNode, index: int) -> bool:
        return node.name not in self.fp32_nodes and _allows_fp16(node, index, self.opset)

    @property
    def graph_inputs(self) -> Set[str]:
        return {value.name for value in self.graph.input if value.name not in self.initializers}


def _plan(model: OnnxModel, keep_fp32: Iterable[str], types: Optional[Mapping[str, str]], keep_nodes: Set[str]) -> _Plan:
    import onnx
    from onnx import TensorProto

    graph = model.graph
    opset = _opset(model)
    float_tensors: Set[str] = set()
    if types is not None:
        float_tensors.update(name for name, type_ in types.items() if type_ == "tensor(float)")
    else:
        inferred = onnx.shape_inference.infer_shapes(model).graph
        for value in list(inferred.value_info) + list(inferred.input) + list(inferred.output):
            if value.type.tensor_type.elem_type == TensorProto.FLOAT:
                float_tensors.add(value.name)
    initializers = {init.name: init for init in graph.initializer}
    float_tensors.update(name for name, init in initializers.items() if init.data_type == TensorProto.FLOAT)
    keep_types = set(keep_fp32)
    fp32_nodes: Set[str] = set()
    for node in graph.node:
        wants_fp32 = node.op_type in keep_types or node.name in keep_nodes or any(
            t in float_tensors and not _allows_fp16(node, i, opset) for i, t in enumerate(node.input) if t
        ) or any(t in float_tensors and not _allows_fp16(node, i, opset, is_output=True) for i, t in enumerate(node.output) if t)
        if wants_fp32 and node.op_type not in ("Cast",):
            fp32_nodes.add(node.name)
    readers: Dict[str, List[Tuple[OnnxNode, int]]] = {}
    for node in graph.node:
        for index, tensor in enumerate(node.input):
            readers.setdefault(tensor, []).append((node, index))
    return _Plan(graph, opset, float_tensors, initializers, fp32_nodes, readers)


def _convert_initializers(plan: _Plan) -> Tuple[List[OnnxTensor], Dict[Tuple[str, int], str]]:
    """Initializers: fp16 where every reader takes fp16, fp32 where none does, both where mixed; and
    (node, input index) -> the fp16 copy to read instead, for the mixed ones."""
    from onnx import TensorProto, numpy_helper

    converted: List[OnnxTensor] = []
    renamed_input: Dict[Tuple[str, int], str] = {}
    for name, init in plan.initializers.items():
        if init.data_type != TensorProto.FLOAT:
            converted.append(init)
            continue
        wants = [(node, index, plan.consumer_wants_fp16(node, index)) for node, index in plan.readers.get(name, [])]
        half = numpy_helper.from_array(numpy_helper.to_array(init).astype(np.float16), name)
        if all(w for _, _, w in wants):
            converted.append(half)
        elif not any(w for _, _, w in wants):
            converted.append(init)
        else:
            converted.append(init)
            half.name = name + FP16_SUFFIX
            converted.append(half)
            for node, index, w in wants:
                if w:
                    renamed_input[(node.name, index)] = half.name
    return converted, renamed_input


def _input_casts(plan: _Plan, renamed_input: Dict[Tuple[str, int], str]) -> List[OnnxNode]:
    """A Cast to fp16 of each float graph input (as a compiled device model converts its inputs);
    the readers that take fp16 read the cast."""
    from onnx import TensorProto, helper

    nodes: List[OnnxNode] = []
    graph_inputs = plan.graph_inputs
    for value in plan.graph.input:
        if value.name in graph_inputs and value.name in plan.float_tensors:
            cast_out = value.name + FP16_SUFFIX
            nodes.append(helper.make_node("Cast", [value.name], [cast_out], name=f"{value.name}_to_fp16", to=TensorProto.FLOAT16))
            for node, index in plan.readers.get(value.name, []):
                if plan.consumer_wants_fp16(node, index):
                    renamed_input[(node.name, index)] = cast_out
    return nodes


def _convert_nodes(plan: _Plan, renamed_input: Dict[Tuple[str, int], str], nodes: List[OnnxNode]) -> Dict[str, str]:
    """Append every node of the graph to `nodes`, rewired to its fp16 inputs, a kept-fp32 node with
    Casts around it; returns each fp32 tensor written by a kept node -> its fp16 copy."""
    import onnx
    from onnx import TensorProto, helper

    graph_inputs = plan.graph_inputs
    fp32_outputs: Dict[str, str] = {}
    for node in plan.graph.node:
        new = onnx.NodeProto()
        new.CopyFrom(node)
        for index, tensor in enumerate(node.input):
            if (node.name, index) in renamed_input:
                new.input[index] = renamed_input[(node.name, index)]
            elif tensor in fp32_outputs and plan.consumer_wants_fp16(node, index):
                new.input[index] = fp32_outputs[tensor]
        _convert_attributes(new)
        if node.name not in plan.fp32_nodes:
            nodes.append(new)
            continue
        # Feed fp32: fp16 activations (not fp32 weights or kept outputs) go through a Cast up, one
        # per tensor (Mul(x, x) reads one).
        ups: Dict[str, str] = {}
        for index, tensor in enumerate(new.input):
            if (tensor and tensor in plan.float_tensors and tensor not in plan.initializers and tensor not in fp32_outputs
                    and tensor not in graph_inputs):
                if tensor not in ups:
                    ups[tensor] = f"{tensor}{FP32_SUFFIX}_{node.name}"
                    nodes.append(helper.make_node("Cast", [tensor], [ups[tensor]], name=f"{node.name}_input{index}_to_fp32",
                                                  to=TensorProto.FLOAT))
                new.input[index] = ups[tensor]
        nodes.append(new)
        for index, tensor in enumerate(node.output):
            if tensor and tensor in plan.float_tensors:
                down = tensor + FP16_SUFFIX
                nodes.append(helper.make_node("Cast", [tensor], [down], name=f"{node.name}_output{index}_to_fp16", to=TensorProto.FLOAT16))
                fp32_outputs[tensor] = down
    return fp32_outputs


def _assemble(model: OnnxModel, nodes: List[OnnxNode], initializers: List[OnnxTensor], fp32_outputs: Dict[str, str]) -> OnnxModel:
    """The converted model, field by field: a whole-model copy would copy every fp32 weight only to
    drop it. Float graph outputs become fp16, but those a kept-fp32 node writes."""
    import onnx
    from onnx import TensorProto

    graph = model.graph
    result = onnx.ModelProto()
    for name in ("ir_version", "producer_name", "producer_version", "domain", "model_version", "doc_string"):
        setattr(result, name, getattr(model, name))
    result.opset_import.extend(model.opset_import)
    result.functions.extend(model.functions)
    result.metadata_props.extend(model.metadata_props)
    result.graph.name = graph.name
    result.graph.input.extend(graph.input)
    _retype_initializer_inputs(result.graph, initializers)
    result.graph.output.extend(graph.output)
    result.graph.node.extend(nodes)
    result.graph.initializer.extend(initializers)
    for value in result.graph.output:
        if value.type.tensor_type.elem_type == TensorProto.FLOAT and value.name not in fp32_outputs:
            value.type.tensor_type.elem_type = TensorProto.FLOAT16
    return result


def _retype_initializer_inputs(graph: OnnxGraph, initializers: List[OnnxTensor]) -> None:
    """IR 3 lists every initializer among the graph inputs too (IR 4 made that optional): such an
    input must declare the type its initializer now has, or ONNX Runtime refuses the model
    ("Tensor element type mismatch. 10 != 1")."""
    types = {init.name: init.data_type for init in initializers}
    for value in graph.input:
        if value.name in types and value.type.HasField("tensor_type"):
            value.type.tensor_type.elem_type = types[value.name]


def _convert_attributes(node: OnnxNode) -> None:
    from onnx import TensorProto, numpy_helper

    for attribute in node.attribute:
        if attribute.name == "to" and node.op_type == "Cast" and attribute.i == TensorProto.FLOAT:
            attribute.i = TensorProto.FLOAT16
        elif attribute.name == "value" and attribute.HasField("t") and attribute.t.data_type == TensorProto.FLOAT:
            attribute.t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(attribute.t).astype(np.float16), attribute.t.name))

"""Seeded random weights for models whose weights carry no information (the light test networks of
the onnx package build every weight with ConstantOfShape as 0.02).

Each weight gets values suited to its role, so activations keep a sane scale through deep networks:
He-normal convolution and dense weights (std sqrt(2 / fan_in)), small biases, batch-norm scales
near 1, variances in [1, 1.1). A weight is recognised by what consumes it, looking through
shape-only ops (Unsqueeze, Reshape, ...). Float tensors in no recognised role are left as they are.

Random batch-norm statistics do not normalise, so every residual join (Sum/Add of a branch and a
shortcut) would double the activation variance: resnet50's 16 joins reach ~1e4 and shufflenet's
overflow fp16. A batch norm whose output goes straight into a join gets scales near 0.2 (as
residual branches are often initialised small): the light models' activations then stay below
~120 in magnitude (resnet50: 13, shufflenet: 119).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Dict, List, Optional, Tuple

import numpy as np
from numpy.typing import NDArray

from opdiff.producers.onnx.support import OnnxGraph, OnnxModel, OnnxNode

_SHAPE_ONLY = ("Unsqueeze", "Squeeze", "Reshape", "Identity", "Flatten", "Transpose")


class WeightRole(Enum):
    """What a weight does in the network, which decides its distribution."""

    DENSE = "dense"  # conv filter or matmul/gemm weight: He normal
    BIAS = "bias"  # N(0, 0.01)
    SCALE = "scale"  # batch-norm or Mul scale: 1 + N(0, 0.1)
    BRANCH_SCALE = "branch scale"  # scale of a batch norm ending a residual branch: 0.2 + N(0, 0.02)
    SHIFT = "shift"  # batch-norm bias or mean, Add operand: N(0, 0.1)
    VARIANCE = "variance"  # batch-norm variance: U[1, 1.1)


@dataclass(frozen=True)
class RandomizedWeights:
    """The new model and how many weights of each role were replaced."""

    model: OnnxModel
    counts: Dict[WeightRole, int]


def _role(op_type: str, index: int, node: OnnxNode) -> Optional[WeightRole]:
    if op_type == "Conv":
        return {1: WeightRole.DENSE, 2: WeightRole.BIAS}.get(index)
    if op_type in ("Gemm", "MatMul"):
        return {1: WeightRole.DENSE, 2: WeightRole.BIAS}.get(index)
    if op_type == "BatchNormalization":
        return {1: WeightRole.SCALE, 2: WeightRole.SHIFT, 3: WeightRole.SHIFT, 4: WeightRole.VARIANCE}.get(index)
    if op_type == "Mul":
        return WeightRole.SCALE
    if op_type in ("Add", "Sum"):
        return WeightRole.SHIFT
    return None


def _fan_in(shape: Tuple[int, ...], consumer: OnnxNode) -> int:
    if consumer.op_type == "Conv":
        return int(np.prod(shape[1:])) if len(shape) > 1 else 1
    if consumer.op_type == "Gemm":
        trans_b = next((a.i for a in consumer.attribute if a.name == "transB"), 0)
        return int(shape[1] if trans_b and len(shape) > 1 else shape[0])
    return int(shape[-2]) if len(shape) >= 2 else int(shape[0])  # MatMul: [..., K, N]


def _values(role: WeightRole, shape: Tuple[int, ...], consumer: OnnxNode, rng: np.random.Generator) -> NDArray[np.float32]:
    # float32 draws: resnet50 has 25M weights, and float64 draws double the time.
    normal = rng.standard_normal(shape, dtype=np.float32)
    values: NDArray[np.float32]  # declared: numpy's stubs type array-with-scalar arithmetic as Any
    if role is WeightRole.DENSE:
        values = normal * np.float32(np.sqrt(2.0 / max(1, _fan_in(shape, consumer))))
    elif role is WeightRole.BIAS:
        values = normal * np.float32(0.01)
    elif role is WeightRole.SCALE:
        values = 1 + np.float32(0.1) * normal
    elif role is WeightRole.BRANCH_SCALE:
        values = np.float32(0.2) + np.float32(0.02) * normal
    elif role is WeightRole.SHIFT:
        values = np.float32(0.1) * normal
    else:
        values = 1 + np.float32(0.1) * rng.random(shape, dtype=np.float32)
    return values


def randomize_weights(model: OnnxModel, seed: int) -> RandomizedWeights:
    """A copy of `model` whose float weights (initializers, and ConstantOfShape nodes fed by a
    constant shape) are replaced by seeded random initializers of the same name, shape and dtype.

    >>> import numpy as np
    >>> from onnx import helper, TensorProto, numpy_helper
    >>> shape = numpy_helper.from_array(np.array([4, 3, 3, 3], np.int64), "w_shape")
    >>> zeros = helper.make_tensor("v", TensorProto.FLOAT, [1], [0.02])
    >>> nodes = [helper.make_node("ConstantOfShape", ["w_shape"], ["w"], value=zeros), helper.make_node("Conv", ["x", "w"], ["y"])]
    >>> g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
    ...     [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [shape])
    >>> result = randomize_weights(helper.make_model(g), seed=0)
    >>> [n.op_type for n in result.model.graph.node], result.counts[WeightRole.DENSE], result.model.graph.initializer[0].dims
    (['Conv'], 1, [4, 3, 3, 3])
    """
    import onnx

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    graph = copy.graph
    consumers: Dict[str, List[Tuple[OnnxNode, int]]] = {}
    for node in graph.node:
        for index, name in enumerate(node.input):
            consumers.setdefault(name, []).append((node, index))
    rng = np.random.default_rng(seed)
    counts = dict.fromkeys(WeightRole, 0)
    replaced_nodes = []
    new_values: Dict[str, np.ndarray] = {}
    # One pass in graph order so that the same seed gives the same weights.
    for name, shape, dtype, constant_node in _candidates(graph):
        found = _semantic_consumer(name, consumers)
        if found is None:
            continue
        consumer, index = found
        role = _role(consumer.op_type, index, consumer)
        assert role is not None
        if role is WeightRole.SCALE and consumer.op_type == "BatchNormalization" and _ends_branch(consumer, consumers):
            role = WeightRole.BRANCH_SCALE
        new_values[name] = _values(role, shape, consumer, rng).astype(dtype)
        counts[role] += 1
        if constant_node is not None:
            replaced_nodes.append(constant_node)
    _replace(graph, replaced_nodes, new_values)
    _tidy(copy)
    return RandomizedWeights(copy, counts)


def _semantic_consumer(tensor: str, consumers: Dict[str, List[Tuple[OnnxNode, int]]]) -> Optional[Tuple[OnnxNode, int]]:
    """The node and input index that give `tensor` its role, following shape-only ops (densenet
    feeds batch-norm scales to Mul through Unsqueeze)."""
    for node, index in consumers.get(tensor, ()):
        if node.op_type in _SHAPE_ONLY and index == 0:
            found = _semantic_consumer(node.output[0], consumers)
            if found is not None:
                return found
        elif _role(node.op_type, index, node) is not None:
            return node, index
    return None


def _candidates(graph: OnnxGraph) -> List[Tuple[str, Tuple[int, ...], np.dtype, Optional[OnnxNode]]]:
    """Every float weight in graph order: (tensor, shape, dtype, the ConstantOfShape node that makes
    it, or None for an initializer)."""
    import onnx
    from onnx import numpy_helper

    initializers = {init.name: init for init in graph.initializer}
    candidates: List[Tuple[str, Tuple[int, ...], np.dtype, Optional[OnnxNode]]] = []
    for init in graph.initializer:
        if init.data_type in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE):
            candidates.append((init.name, tuple(init.dims), numpy_helper.to_array(init).dtype, None))
    for node in graph.node:
        if node.op_type != "ConstantOfShape" or node.input[0] not in initializers:
            continue
        shape = tuple(int(d) for d in numpy_helper.to_array(initializers[node.input[0]]))
        value = next((a.t for a in node.attribute if a.name == "value"), None)
        dtype = numpy_helper.to_array(value).dtype if value is not None else np.dtype(np.float32)
        if dtype.kind == "f":
            candidates.append((node.output[0], shape, dtype, node))
    return candidates


def _replace(graph: OnnxGraph, replaced_nodes: List[OnnxNode], new_values: Dict[str, np.ndarray]) -> None:
    """Drop the replaced ConstantOfShape nodes and initializers; add the new initializers."""
    from onnx import numpy_helper

    # Rebuild the node list: removing from a protobuf repeated field one by one is quadratic.
    replaced = {id(node) for node in replaced_nodes}
    kept_nodes = [node for node in graph.node if id(node) not in replaced]
    del graph.node[:]
    graph.node.extend(kept_nodes)
    kept = [init for init in graph.initializer if init.name not in new_values]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    graph.initializer.extend(numpy_helper.from_array(array, name) for name, array in new_values.items())


def _ends_branch(node: OnnxNode, consumers: Dict[str, List[Tuple[OnnxNode, int]]]) -> bool:
    """True when `node`'s output goes straight into a residual join (Sum or Add)."""
    return any(reader.op_type in ("Sum", "Add") for reader, _ in consumers.get(node.output[0], ()))


def _tidy(model: OnnxModel) -> None:
    """Drop initializers nothing uses (the shapes of the removed ConstantOfShape nodes) and take
    initializers out of the graph inputs: IR 3 models list them there, which makes ONNX Runtime
    treat them as overridable inputs that it may neither fold nor fuse."""
    graph = model.graph
    used = {name for node in graph.node for name in node.input}
    kept = [init for init in graph.initializer if init.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    constant = {init.name for init in kept}
    inputs = [value for value in graph.input if value.name not in constant and value.name in used]
    del graph.input[:]
    graph.input.extend(inputs)
    model.ir_version = max(model.ir_version, 4)  # IR 4: initializers need not be inputs

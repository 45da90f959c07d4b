"""A model cut at every tensor between two nodes: each node reads its op-written inputs from graph
inputs of their own, so that one run computes every op on given values (the float32 run's), not
on what the ops before it wrote. Converted to fp16, one run of it gives every op's own fp16 error
at once: what ``--isolate`` measures op by op on a device's inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Mapping

import numpy as np

from opdiff.producers.onnx.support import OnnxModel

CUT_SUFFIX = "__cut"


@dataclass(frozen=True)
class CutModel:
    """The cut model, and for each of its new graph inputs the tensor whose value it is fed."""

    model: OnnxModel
    fed_from: Dict[str, str]

    def feeds(self, inputs: Mapping[str, np.ndarray], tensors: Mapping[str, np.ndarray]) -> Dict[str, np.ndarray]:
        """The cut model's feeds: the model `inputs`, and each cut input the value `tensors` hold."""
        feeds = dict(inputs)
        feeds.update({cut: tensors[tensor] for cut, tensor in self.fed_from.items()})
        return feeds


def cut_every_node(model: OnnxModel, tensors: Mapping[str, np.ndarray], types: Mapping[str, str]) -> CutModel:
    """`model` with every input that a node writes read from a new graph input, ``NAME__cut``,
    of the shape and type `tensors` (a run's values: :func:`.runner.run_exposing_all`) give it;
    the node outputs and the graph outputs keep their names. A tensor `tensors` lacks is not cut,
    nor a value `types` (the run's) says is no tensor: a sequence or an optional cannot be fed.

    >>> import numpy as np
    >>> from onnx import helper, TensorProto
    >>> g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Neg", ["r"], ["y"])], "g",
    ...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    >>> cut = cut_every_node(helper.make_model(g), {"r": np.zeros(2, np.float32)}, {"r": "tensor(float)"})
    >>> [list(n.input) for n in cut.model.graph.node], cut.fed_from
    ([['x'], ['r__cut']], {'r__cut': 'r'})
    """
    from onnx import helper

    cut = type(model)()
    cut.CopyFrom(model)
    written = {t for node in cut.graph.node for t in node.output if t}
    fed_from: Dict[str, str] = {}
    for node in cut.graph.node:
        for index, tensor in enumerate(node.input):
            if tensor in written and tensor in tensors and types.get(tensor, "").startswith("tensor("):
                node.input[index] = tensor + CUT_SUFFIX
                fed_from[tensor + CUT_SUFFIX] = tensor
    for name, tensor in fed_from.items():
        value = np.asarray(tensors[tensor])
        cut.graph.input.append(helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype), list(value.shape)))
    return CutModel(cut, fed_from)


def cut_types(types: Mapping[str, str], cut: CutModel) -> Dict[str, str]:
    """Each tensor's element type in the cut model: `types` (the uncut model's) with each cut
    input typed as the tensor it is fed from."""
    extended = dict(types)
    extended.update({name: types[tensor] for name, tensor in cut.fed_from.items() if tensor in types})
    return extended

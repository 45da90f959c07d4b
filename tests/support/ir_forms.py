"""One model in the two shapes ONNX files really come in: IR 3, where every initializer is also a
graph input (the IR required it until IR 4, and old exporters and the onnx wheel's light models
still write it), and the current IR, where initializers are constants only.

ONNX Runtime treats an initializer that is also a graph input as an input with a default value:
its declared input type must match the initializer's, so a producer that rewrites weights (fp16
conversion) must keep both in step. The light models' weights are ConstantOfShape nodes; both
forms here hold seeded random initializers instead (:func:`randomize_weights`).
"""

from __future__ import annotations

from enum import Enum

from opdiff.producers.onnx.light_models import load_light_model
from opdiff.producers.onnx.random_weights import randomize_weights
from opdiff.producers.onnx.support import OnnxModel

IR3 = 3


class IrForm(str, Enum):
    """``ir3``: initializers listed as graph inputs, IR 3; ``current``: initializers only, the IR
    version of the installed onnx package."""

    IR3 = "ir3"
    CURRENT = "current"


def in_ir_form(model: OnnxModel, form: IrForm) -> OnnxModel:
    """A copy of `model` in `form` (same nodes, opsets and initializers).

    >>> import numpy as np
    >>> from onnx import helper, TensorProto, numpy_helper
    >>> g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g",
    ...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    ...     [numpy_helper.from_array(np.ones(2, np.float32), "w")])
    >>> old = in_ir_form(helper.make_model(g, opset_imports=[helper.make_opsetid("", 9)]), IrForm.IR3)
    >>> old.ir_version, [v.name for v in old.graph.input]
    (3, ['x', 'w'])
    >>> [v.name for v in in_ir_form(old, IrForm.CURRENT).graph.input]
    ['x']
    """
    import onnx
    from onnx import helper

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    graph = copy.graph
    constants = {init.name for init in graph.initializer}
    inputs = [value for value in graph.input if value.name not in constants]
    del graph.input[:]
    graph.input.extend(inputs)
    if form is IrForm.IR3:
        graph.input.extend(helper.make_tensor_value_info(init.name, init.data_type, list(init.dims)) for init in graph.initializer)
        copy.ir_version = IR3
    else:
        copy.ir_version = onnx.IR_VERSION
    return copy


def light_model_in_form(name: str, form: IrForm, seed: int = 0) -> OnnxModel:
    """Light model `name` of the onnx wheel with seeded random weights, in `form`.

    >>> light_model_in_form("squeezenet", IrForm.IR3).ir_version  # doctest: +SKIP
    3
    """
    return in_ir_form(randomize_weights(load_light_model(name), seed).model, form)

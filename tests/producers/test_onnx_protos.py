"""onnx's protobuf classes and shape inference without importing onnx whole (its package imports
ml_dtypes, 0.6 s with numpy 2.4): the same classes a later ``import onnx`` gives, the same inferred
graph, and the numpy dtypes of onnx.helper."""

import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytestmark = pytest.mark.onnx  # onnx's own modules: not a core-facing test (.ci/run's sanitizer pass skips it)

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from opdiff.producers.onnx.runner import hollow_copy  # noqa: E402
from opdiff.producers.onnx.support import infer_shapes, numpy_dtype_of, onnx_protos, own_numpy_dtype  # noqa: E402

# Run in a fresh interpreter: here, onnx is imported already.
ALONE = """
import sys
from opdiff.producers.onnx.support import infer_shapes, onnx_protos
protos = onnx_protos()
assert not {"onnx", "onnx.helper", "ml_dtypes"} & set(sys.modules), sorted(sys.modules)
model = protos.ModelProto(ir_version=8)
model.opset_import.add().version = 13
node = model.graph.node.add(op_type="Relu", input=["x"], output=["y"], name="relu")
x = model.graph.input.add(name="x")
x.type.tensor_type.elem_type = protos.TensorProto.FLOAT
x.type.tensor_type.shape.dim.add().dim_value = 3
model.graph.output.add(name="y")
model.graph.name = "g"
inferred = infer_shapes(model)
import onnx  # the whole package, after its protobuf module and C++ extension were loaded alone
from onnx import helper, onnx_ml_pb2, shape_inference
assert onnx.ModelProto is protos.ModelProto and onnx_ml_pb2 is protos
assert shape_inference.infer_shapes(model) == inferred
onnx.checker.check_model(inferred)
assert helper.make_model(model.graph).graph == model.graph
print(inferred.graph.output[0].type.tensor_type.elem_type, inferred.graph.output[0].type.tensor_type.shape.dim[0].dim_value)
"""


def test_the_protos_alone_are_onnx_own_classes_and_infer_as_onnx_does():
    done = subprocess.run([sys.executable, "-c", ALONE], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "3"]  # y: float, [3]


def test_shape_inference_is_onnx_own():
    graph = helper.make_graph([helper.make_node("Cast", ["x"], ["c"], to=TensorProto.INT64), helper.make_node("Neg", ["c"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])], [helper.make_tensor_value_info("y", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    assert infer_shapes(model) == onnx.shape_inference.infer_shapes(model)
    assert onnx_protos().ModelProto is onnx.ModelProto


def test_own_numpy_dtypes_are_onnx_helpers_for_every_element_type():
    for elem in TensorProto.DataType.values():
        if elem == TensorProto.UNDEFINED:
            continue
        expected = np.dtype(helper.tensor_dtype_to_np_dtype(elem))
        numpy_own = expected.isbuiltin == 1 and expected.kind != "O"  # not ml_dtypes' types, nor strings
        assert (own_numpy_dtype(elem) == expected) if numpy_own else own_numpy_dtype(elem) is None, TensorProto.DataType.Name(elem)
        assert numpy_dtype_of(elem) == expected


def test_the_hollow_copy_types_weights_as_onnx_helper_does():
    weights = [numpy_helper.from_array(np.ones((64, 32), np.float32), "w"), numpy_helper.from_array(np.ones(2048, np.float16), "h")]
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32])], weights)
    hollow = hollow_copy(helper.make_model(graph), keep_bytes=1024)
    assert list(hollow.graph.input)[1:] == [helper.make_tensor_value_info(w.name, w.data_type, list(w.dims)) for w in weights]
    assert not hollow.graph.initializer

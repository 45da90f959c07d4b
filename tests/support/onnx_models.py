"""Small ONNX models built with onnx.helper for the producer tests, with numpy references."""

from typing import Dict

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 13)]
# The oldest IR that holds opset 13 (7), not the newest onnx knows (make_model's default): older
# onnxruntime releases, the last ones for CPython 3.10 among them, refuse IR versions they predate.
IR_VERSION = helper.find_min_ir_version_for(OPSET)


def mlp_model():
    """in/x [batch, 4] -> MatMul "fc/mat.mul" -> Add "in_x" -> Relu (unnamed) -> Split "split::1"
    (2 outputs) -> Mul of the halves -> Softmax. The Add's name is the input's escaped name, the
    Split's holds characters no file name may hold."""
    rng = np.random.default_rng(1)
    w = rng.standard_normal((4, 6)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["in/x", "w"], ["mm"], name="fc/mat.mul"),
        helper.make_node("Add", ["mm", "b"], ["biased"], name="in_x"),
        helper.make_node("Relu", ["biased"], ["act"]),
        helper.make_node("Split", ["act"], ["left", "right"], name="split::1", axis=1),
        helper.make_node("Mul", ["left", "right"], ["prod"], name="mul"),
        helper.make_node("Softmax", ["prod"], ["prob"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("in/x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, ["batch", 3])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )
    return helper.make_model(graph, opset_imports=OPSET, ir_version=IR_VERSION), w, b


def mlp_reference(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> Dict[str, np.ndarray]:
    """Every tensor of mlp_model computed with numpy (float64, for a tolerance check)."""
    mm = x.astype(np.float64) @ w
    act = np.maximum(mm + b, 0)
    left, right = act[:, :3], act[:, 3:]
    prod = left * right
    e = np.exp(prod - prod.max(axis=-1, keepdims=True))
    return {"mm": mm, "biased": mm + b, "act": act, "left": left, "right": right, "prod": prod, "prob": e / e.sum(axis=-1, keepdims=True)}


def conv_bn_relu_model(channels: int = 8):
    """x [1, 3, 8, 8] -> Conv "conv" -> BatchNormalization "bn" -> Relu "relu" -> GlobalAveragePool "gap":
    ONNX Runtime fuses the first three into one node."""
    rng = np.random.default_rng(2)
    inits = [
        numpy_helper.from_array((rng.standard_normal((channels, 3, 3, 3)) * 0.3).astype(np.float32), "w"),
        numpy_helper.from_array(rng.standard_normal(channels).astype(np.float32) * 0.1, "cb"),
        numpy_helper.from_array((1 + 0.1 * rng.standard_normal(channels)).astype(np.float32), "scale"),
        numpy_helper.from_array((0.1 * rng.standard_normal(channels)).astype(np.float32), "shift"),
        numpy_helper.from_array((0.1 * rng.standard_normal(channels)).astype(np.float32), "mean"),
        numpy_helper.from_array((1 + 0.1 * rng.random(channels)).astype(np.float32), "var"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w", "cb"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c", "scale", "shift", "mean", "var"], ["n"], name="bn"),
        helper.make_node("Relu", ["n"], ["r"], name="relu"),
        helper.make_node("GlobalAveragePool", ["r"], ["y"], name="gap"),
    ]
    graph = helper.make_graph(nodes, "cbr", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, channels, 1, 1])], inits)
    return helper.make_model(graph, opset_imports=OPSET, ir_version=IR_VERSION)

"""Small ONNX models whose fp16 run goes wrong in a known op, with the inputs that make it happen.

Every value fed or stored is exact in fp16, so the error comes from the ops' own rounding:

* ``overflow_then_divide``: a MatMul whose outputs reach 278,463 (past fp16's largest, 65,504),
  then a Div by 1e4 brings them back to about 27.8. A device's fp16 MatMul writes inf, and so
  does the Div after it.
* ``offset_then_center``: an Add of 4096, then a mean-centering (ReduceMean, Sub). fp16's spacing
  at 4096 is 4, so the centred values are off by up to 2 where fp32 gets them right to 1e-3.
"""

from typing import Dict, Tuple

import numpy as np
from onnx import ModelProto, TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 13)]
IR_VERSION = helper.find_min_ir_version_for(OPSET)
Feeds = Dict[str, np.ndarray]


def _model(nodes, name: str, inputs, outputs, initializers) -> ModelProto:
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    return helper.make_model(graph, opset_imports=OPSET, ir_version=IR_VERSION)


def overflow_then_divide() -> Tuple[ModelProto, Feeds]:
    """x [16, 16] -> MatMul "mm" (outputs up to 278,463) -> Div "div" by 1e4 -> Relu "relu"."""
    rng = np.random.default_rng(35)
    x = rng.integers(60, 100, (16, 16)).astype(np.float32)
    w = rng.integers(60, 100, (16, 16)).astype(np.float32) * np.float32(2.0)  # exact in fp16
    w[:, :8] *= np.float32(0.125)  # half of the columns stay below fp16's range
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["mm_out"], name="mm"),
        helper.make_node("Div", ["mm_out", "scale"], ["div_out"], name="div"),
        helper.make_node("Relu", ["div_out"], ["y"], name="relu"),
    ]
    model = _model(nodes, "overflow_then_divide", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, 16])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16, 16])],
                   [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array(1e4, np.float32), "scale")])
    return model, {"x": x}


def offset_then_center() -> Tuple[ModelProto, Feeds]:
    """x [4, 64] (values 0..4) -> Add "offset" of 4096 -> ReduceMean "mean" -> Sub "center"."""
    x = (np.arange(256, dtype=np.float32).reshape(4, 64) % 64) / np.float32(16.0)
    nodes = [
        helper.make_node("Add", ["x", "shift"], ["shifted"], name="offset"),
        helper.make_node("ReduceMean", ["shifted"], ["mean_out"], name="mean", axes=[-1], keepdims=1),
        helper.make_node("Sub", ["shifted", "mean_out"], ["y"], name="center"),
    ]
    model = _model(nodes, "offset_then_center", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 64])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 64])],
                   [numpy_helper.from_array(np.array(4096.0, np.float32), "shift")])
    return model, {"x": x}


def layer_norm_over_offset() -> Tuple[ModelProto, Feeds]:
    """x [4, 64] (values 0..4) + 4096 -> a LayerNorm written out: mean, centre, square, variance,
    + eps, sqrt, divide (8 ops). The offset costs the centring its low bits in fp16."""
    x = (np.arange(256, dtype=np.float32).reshape(4, 64) % 64) / np.float32(16.0)
    nodes = [
        helper.make_node("Add", ["x", "shift"], ["shifted"], name="offset"),
        helper.make_node("ReduceMean", ["shifted"], ["mean_out"], name="mean", axes=[-1], keepdims=1),
        helper.make_node("Sub", ["shifted", "mean_out"], ["centred"], name="center"),
        helper.make_node("Mul", ["centred", "centred"], ["squared"], name="square"),
        helper.make_node("ReduceMean", ["squared"], ["var_out"], name="var", axes=[-1], keepdims=1),
        helper.make_node("Add", ["var_out", "eps"], ["var_eps"], name="add_eps"),
        helper.make_node("Sqrt", ["var_eps"], ["std_out"], name="std"),
        helper.make_node("Div", ["centred", "std_out"], ["y"], name="normalize"),
    ]
    model = _model(nodes, "layer_norm_over_offset", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 64])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 64])],
                   [numpy_helper.from_array(np.array(4096.0, np.float32), "shift"), numpy_helper.from_array(np.array(1e-5, np.float32), "eps")])
    return model, {"x": x}


def softmax_of_large_logits() -> Tuple[ModelProto, Feeds]:
    """x [4, 32] -> MatMul "logits" (past 65,504) -> Mul "temperature" by 1/4096 -> Softmax "softmax"."""
    rng = np.random.default_rng(7)
    x = rng.integers(1, 64, (4, 32)).astype(np.float32)
    w = rng.integers(1, 64, (32, 32)).astype(np.float32) * np.float32(2.0)
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["logits_out"], name="logits"),
        helper.make_node("Mul", ["logits_out", "inv_t"], ["scaled"], name="temperature"),
        helper.make_node("Softmax", ["scaled"], ["y"], name="softmax", axis=-1),
    ]
    model = _model(nodes, "softmax_of_large_logits", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 32])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 32])],
                   [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array(1 / 4096, np.float32), "inv_t")])
    return model, {"x": x}


def exp_chain() -> Tuple[ModelProto, Feeds]:
    """A log-softmax written out: x [4, 64] (values 5..9) -> Mul "scale" -> Exp "exp" -> ReduceSum "sum"
    (past 65,504) -> Log "log" -> Sub "log_softmax" (x - log sum exp)."""
    x = (5 + (np.arange(256, dtype=np.float32).reshape(4, 64) % 64) / np.float32(16.0)).astype(np.float32)
    nodes = [
        helper.make_node("Mul", ["x", "one"], ["scaled"], name="scale"),
        helper.make_node("Exp", ["scaled"], ["exp_out"], name="exp"),
        helper.make_node("ReduceSum", ["exp_out", "axes"], ["sum_out"], name="sum", keepdims=1),
        helper.make_node("Log", ["sum_out"], ["log_out"], name="log"),
        helper.make_node("Sub", ["scaled", "log_out"], ["y"], name="log_softmax"),
    ]
    model = _model(nodes, "exp_chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 64])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 64])],
                   [numpy_helper.from_array(np.array(1.0, np.float32), "one"), numpy_helper.from_array(np.array([-1], np.int64), "axes")])
    return model, {"x": x}


FRAGILE_MODELS = {
    "overflow_then_divide": overflow_then_divide,
    "layer_norm_over_offset": layer_norm_over_offset,
    "softmax_of_large_logits": softmax_of_large_logits,
    "exp_chain": exp_chain,
}


def save_fragile_model(folder, name: str):
    """Fragile model `name` saved as ``folder/{name}.onnx`` with its inputs as ``folder/{input}.npy``:
    (model, feeds, path, the ``--input NAME=FILE.npy`` arguments)."""
    import onnx

    model, feeds = FRAGILE_MODELS[name]()
    path = folder / f"{name}.onnx"
    onnx.save(model, str(path))
    inputs = []
    for input_name, value in feeds.items():
        np.save(folder / f"{input_name}.npy", value)
        inputs += ["--input", f"{input_name}={folder / f'{input_name}.npy'}"]
    return model, feeds, path, inputs

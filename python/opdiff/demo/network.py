"""A small convolutional network computed with numpy, op by op.

The golden run computes in float32. The device run imitates an fp16 accelerator: every op takes
fp16 inputs and weights, computes in float32 and rounds its output to fp16. One op can be given a
fault (its weights scaled), which the comparison should point at.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class Op:
    """One operator: its name, type, input op names and parameters."""

    name: str
    type: str
    inputs: Tuple[str, ...]
    params: Dict[str, np.ndarray] = field(default_factory=dict)


def conv2d(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """3x3 or 1x1 convolution, stride 1, 'same' padding, NCHW (im2col + one matmul)."""
    n, c, h, w = x.shape
    k = weight.shape[-1]
    pad = k // 2
    padded = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    columns = np.stack([padded[:, :, i : i + h, j : j + w] for i in range(k) for j in range(k)], axis=2)
    columns = columns.reshape(n, c * k * k, h * w)
    out = np.einsum("of,nfp->nop", weight.reshape(weight.shape[0], -1), columns)
    return np.asarray(out.reshape(n, weight.shape[0], h, w) + bias[None, :, None, None])


def run_op(op: Op, inputs: List[np.ndarray]) -> np.ndarray:
    x = inputs[0]
    if op.type == "Conv2D":
        return conv2d(x, op.params["weight"], op.params["bias"])
    if op.type == "BatchNorm":
        p = op.params
        scale = p["gamma"] / np.sqrt(p["var"] + 1e-5)
        return np.asarray((x - p["mean"][None, :, None, None]) * scale[None, :, None, None] + p["beta"][None, :, None, None])
    if op.type == "Relu":
        return np.asarray(np.maximum(x, 0))
    if op.type == "MaxPool":
        n, c, h, w = x.shape
        return np.asarray(x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5)))
    if op.type == "Add":
        return np.asarray(x + inputs[1])
    if op.type == "GlobalAvgPool":
        return np.asarray(x.mean(axis=(2, 3)))
    if op.type == "MatMul":
        return np.asarray(x @ op.params["weight"].T + op.params["bias"])
    if op.type == "Softmax":
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return np.asarray(e / e.sum(axis=-1, keepdims=True))
    raise ValueError(f"unknown op type {op.type}")


def build_network(seed: int = 0) -> List[Op]:
    """A residual CNN: 3 -> 16 -> 32 channels on 32x32 images, 10 classes."""
    rng = np.random.default_rng(seed)

    def conv(name: str, src: str, c_in: int, c_out: int, k: int = 3) -> Op:
        weight = rng.standard_normal((c_out, c_in, k, k)).astype(np.float32) * np.float32(np.sqrt(2.0 / (c_in * k * k)))
        return Op(name, "Conv2D", (src,), {"weight": weight, "bias": np.zeros(c_out, np.float32)})

    def bn(name: str, src: str, c: int) -> Op:
        params = {
            "gamma": (1 + 0.1 * rng.standard_normal(c)).astype(np.float32),
            "beta": (0.1 * rng.standard_normal(c)).astype(np.float32),
            "mean": (0.1 * rng.standard_normal(c)).astype(np.float32),
            "var": (1 + 0.1 * rng.random(c)).astype(np.float32),
        }
        return Op(name, "BatchNorm", (src,), params)

    ops = [
        conv("stem/conv", "input", 3, 16),
        bn("stem/bn", "stem/conv", 16),
        Op("stem/relu", "Relu", ("stem/bn",)),
        conv("block1/conv1", "stem/relu", 16, 16),
        bn("block1/bn1", "block1/conv1", 16),
        Op("block1/relu1", "Relu", ("block1/bn1",)),
        conv("block1/conv2", "block1/relu1", 16, 16),
        bn("block1/bn2", "block1/conv2", 16),
        Op("block1/add", "Add", ("block1/bn2", "stem/relu")),
        Op("block1/relu2", "Relu", ("block1/add",)),
        Op("pool1", "MaxPool", ("block1/relu2",)),
        conv("block2/conv1", "pool1", 16, 32),
        bn("block2/bn1", "block2/conv1", 32),
        Op("block2/relu1", "Relu", ("block2/bn1",)),
        conv("block2/conv2", "block2/relu1", 32, 32),
        bn("block2/bn2", "block2/conv2", 32),
        Op("block2/relu2", "Relu", ("block2/bn2",)),
        Op("gap", "GlobalAvgPool", ("block2/relu2",)),
    ]
    fc_weight = rng.standard_normal((10, 32)).astype(np.float32) * np.float32(0.3)
    ops.append(Op("fc", "MatMul", ("gap",), {"weight": fc_weight, "bias": np.zeros(10, np.float32)}))
    ops.append(Op("prob", "Softmax", ("fc",)))
    return ops


def with_fault(ops: List[Op], op_name: str, scale: float) -> List[Op]:
    """A copy of the network whose op `op_name` computes a quarter of its output channels with
    weights multiplied by `scale` (a plain overall scale would leave the cosine untouched)."""
    faulty = []
    for op in ops:
        if op.name == op_name:
            params = dict(op.params)
            weight = params["weight"].copy()
            weight[: max(1, weight.shape[0] // 4)] *= np.float32(scale)
            params["weight"] = weight
            op = Op(op.name, op.type, op.inputs, params)
        faulty.append(op)
    return faulty


def run_network(ops: List[Op], image: np.ndarray, dtype: Optional[npt.DTypeLike] = None) -> Dict[str, np.ndarray]:
    """Every op's output, in execution order. With dtype=float16, inputs, weights and outputs are
    rounded to fp16 at every op (the arithmetic itself is float32, as on the device's cube unit)."""
    outputs: Dict[str, np.ndarray] = {"input": image if dtype is None else image.astype(dtype)}
    for op in ops:
        inputs = [outputs[name].astype(np.float32) for name in op.inputs]
        if dtype is not None:
            rounded = {k: v.astype(dtype).astype(np.float32) for k, v in op.params.items()}
            op = Op(op.name, op.type, op.inputs, rounded)
        result = run_op(op, inputs).astype(np.float32)
        outputs[op.name] = result if dtype is None else result.astype(dtype)
    return outputs

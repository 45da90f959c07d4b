"""Small frozen TensorFlow graphs for the dump-tf tests, built with TensorFlow's own API (graph mode,
weights as constants: what freezing leaves). Import only where tensorflow is installed."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional

import numpy as np

from tests.support.tf_required import tensorflow_or_skip

tf = tensorflow_or_skip()

v1 = tf.compat.v1


@contextmanager
def control_flow_v1() -> Iterator[None]:
    """TF1 control flow (Enter/Exit/Switch/Merge) while the block builds ops; TF2's afterwards."""
    was_v2 = v1.control_flow_v2_enabled()
    v1.disable_control_flow_v2()
    try:
        yield
    finally:
        if was_v2:
            v1.enable_control_flow_v2()


def conv_net_graph_def() -> Any:
    """x [?, 8, 8, 3] -> conv (with bias) -> batch norm -> relu -> matmul -> + noise (an unseeded random
    op) -> softmax; beside it a TF1 while loop and a cond (one branch is dead in every run), a
    tf.function (its ops live in the function library), a random op seeded by the graph and an op
    that fails at run time (CheckNumerics)."""
    rng = np.random.default_rng(7)
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 8, 8, 3], name="x")
        conv = tf.nn.conv2d(x, tf.constant(rng.standard_normal((3, 3, 3, 4)).astype(np.float32), name="conv/w"), 1, "SAME", name="conv/conv")
        conv = tf.nn.bias_add(conv, tf.constant(rng.standard_normal(4).astype(np.float32)), name="conv/bias")
        bn, _, _ = v1.nn.fused_batch_norm(conv, tf.constant([1.0, 0.9, 1.1, 1.2]), tf.constant([0.1, 0.0, -0.1, 0.2]),
                                          mean=tf.constant([0.0, 0.1, -0.2, 0.3]), variance=tf.constant([1.0, 1.5, 0.5, 2.0]),
                                          is_training=False, name="bn")
        relu = tf.nn.relu(bn, name="relu")
        flat = tf.reshape(relu, [-1, 8 * 8 * 4], name="flatten")
        logits = tf.matmul(flat, tf.constant(rng.standard_normal((256, 10)).astype(np.float32) * 0.05), name="fc/matmul")
        noise = v1.random_normal([10], stddev=0.01, name="noise")
        fixed = v1.random_uniform([10], seed=3, name="fixed_noise")
        probabilities = tf.nn.softmax(logits + noise + 0.0 * fixed, name="softmax")
        with control_flow_v1():
            _, looped = v1.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 0.5), [tf.constant(0), probabilities], name="loop")
            v1.cond(tf.reduce_sum(looped) > 1e6, lambda: tf.identity(looped, name="big") * 2.0,
                    lambda: tf.identity(looped, name="small") + 1.0, name="branch")

        # fails at run time (the log of a negative number): its tensor and the one computed from it
        checked = tf.debugging.check_numerics(tf.math.log(-tf.abs(logits) - 1.0), "log of a negative", name="checked")
        tf.identity(checked * 2.0, name="after_checked")

        @tf.function
        def doubled(a: tf.Tensor) -> tf.Tensor:
            return a * 2.0 + 1.0

        tf.identity(doubled(probabilities), name="doubled")
    return graph.as_graph_def()


def write_pb(graph_def: Any, path: Path) -> Path:
    path.write_bytes(graph_def.SerializeToString())
    return path


def small_net_graph_def(scales: Optional[Mapping[str, float]] = None) -> Any:
    """x [1, 6, 6, 3] -> conv (conv/w) -> bias (conv/b) -> relu -> flatten -> matmul (fc/w, read
    through an Identity as freezing leaves it) -> softmax. `scales` multiplies the named weight
    Consts: a faulted copy of the same graph."""
    rng = np.random.default_rng(11)
    weights = {"conv/w": rng.standard_normal((3, 3, 3, 4)).astype(np.float32) * 0.3,
               "conv/b": rng.standard_normal(4).astype(np.float32) * 0.1,
               "fc/w": rng.standard_normal((144, 5)).astype(np.float32) * 0.1}
    for name, scale in (scales or {}).items():
        weights[name] = weights[name] * np.float32(scale)
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [1, 6, 6, 3], name="x")
        conv = tf.nn.conv2d(x, tf.constant(weights["conv/w"], name="conv/w"), 1, "SAME", name="conv/conv")
        biased = tf.nn.bias_add(conv, tf.constant(weights["conv/b"], name="conv/b"), name="conv/bias")
        relu = tf.nn.relu(biased, name="relu")
        flat = tf.reshape(relu, [1, 144], name="flatten")
        fc_w = tf.identity(tf.constant(weights["fc/w"], name="fc/w"), name="fc/w/read")
        logits = tf.matmul(flat, fc_w, name="fc/matmul")
        tf.nn.softmax(logits, name="softmax")
    return graph.as_graph_def()


def fp16_overflow_graph_def() -> Any:
    """x [4, 16] -> matmul (fc/w: every product sum past fp16's 65504) -> scale (x 1e-4, back to tens)
    -> bias -> out (an Identity, the model output). In fp16 the matmul overflows to inf; keeping it
    alone is not enough, since the scale, in fp16, reads its output rounded to fp16: only the
    matmul and the scale kept together pass. x as `fp16_overflow_input` gives it."""
    rng = np.random.default_rng(5)
    weight = (4000 + 8 * rng.integers(0, 125, (16, 4))).astype(np.float32)  # 4000 to 5000, exact in fp16
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [4, 16], name="x")
        product = tf.matmul(x, tf.constant(weight, name="fc/w"), name="fc/matmul")
        scaled = tf.multiply(product, tf.constant(1e-4, tf.float32, name="scale/factor"), name="scale")
        biased = tf.add(scaled, tf.constant(rng.standard_normal(4).astype(np.float32), name="bias/b"), name="bias")
        tf.identity(biased, name="out")
    return graph.as_graph_def()


def fp16_overflow_input() -> np.ndarray:
    """The input of `fp16_overflow_graph_def`: 2 to 3 in steps of 1/16 (exact in fp16)."""
    return (2 + np.random.default_rng(6).integers(0, 17, (4, 16)) / 16).astype(np.float32)

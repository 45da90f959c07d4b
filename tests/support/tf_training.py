"""Small TensorFlow training graphs saved as TF1 checkpoints (and SavedModels) for the dump-tf
--train-op tests: conv -> batch norm (training, with moving-average updates) -> relu -> dense ->
dropout -> dense -> softmax cross-entropy, minimised by SGD (reference variables) or Adam
(resource variables). Import only where tensorflow is installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Tuple

import numpy as np

from tests.support.tf_required import tensorflow_or_skip

tf = tensorflow_or_skip()
v1 = tf.compat.v1

BATCH, CLASSES = 4, 5


def _variable(name: str, value: np.ndarray, resource: bool) -> Any:
    return v1.get_variable(name, initializer=tf.constant(value), use_resource=resource)


def _network(x: Any, labels: Any, resource: bool) -> Any:
    """The loss of the network on `x` (NHWC [BATCH, 6, 6, 3]) and one-hot `labels`."""
    rng = np.random.default_rng(5)
    w = _variable("conv/w", (rng.standard_normal((3, 3, 3, 4)) * 0.3).astype(np.float32), resource)
    conv = tf.nn.conv2d(x, w, 1, "SAME", name="conv/conv")
    gamma = _variable("bn/gamma", np.ones(4, np.float32), resource)
    beta = _variable("bn/beta", np.zeros(4, np.float32), resource)
    moving_mean = _variable("bn/moving_mean", np.zeros(4, np.float32), resource)
    moving_var = _variable("bn/moving_var", np.ones(4, np.float32), resource)
    bn, mean, var = v1.nn.fused_batch_norm(conv, gamma, beta, is_training=True, name="bn/fused")
    updates = [v1.assign(moving_mean, moving_mean * 0.9 + mean * 0.1, name="bn/update_mean"),
               v1.assign(moving_var, moving_var * 0.9 + var * 0.1, name="bn/update_var")]
    relu = tf.nn.relu(bn, name="relu")
    flat = tf.reshape(relu, [-1, 6 * 6 * 4], name="flatten")
    w1 = _variable("fc1/w", (rng.standard_normal((144, 16)) * 0.1).astype(np.float32), resource)
    b1 = _variable("fc1/b", np.zeros(16, np.float32), resource)
    hidden = tf.nn.relu(tf.matmul(flat, w1) + b1, name="fc1/relu")
    dropped = v1.nn.dropout(hidden, rate=0.25, name="dropout")
    w2 = _variable("fc2/w", (rng.standard_normal((16, CLASSES)) * 0.1).astype(np.float32), resource)
    b2 = _variable("fc2/b", np.zeros(CLASSES, np.float32), resource)
    logits = tf.add(tf.matmul(dropped, w2), b2, name="logits")
    loss = tf.reduce_mean(v1.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits), name="loss")
    return loss, updates


def build_training_graph(optimizer: str) -> Tuple[Any, Any]:
    """(graph, train op) of the network: "sgd" (VariableV2, ApplyGradientDescent) or "adam"
    (VarHandleOp, ResourceApplyAdam); the train op also runs the moving-average updates."""
    resource = optimizer == "adam"
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 6, 6, 3], name="x")
        labels = v1.placeholder(tf.float32, [None, CLASSES], name="labels")
        loss, updates = _network(x, labels, resource)
        chosen = v1.train.AdamOptimizer(0.01) if resource else v1.train.GradientDescentOptimizer(0.1)
        with tf.control_dependencies(updates):
            train = chosen.minimize(loss, name="train")
    return graph, train


def save_checkpoint(optimizer: str, folder: Path) -> Path:
    """The network's variables initialised and saved as ``folder/model.ckpt`` (with its .meta);
    returns the .meta path."""
    graph, _ = build_training_graph(optimizer)
    with graph.as_default():
        saver = v1.train.Saver()
        with v1.Session(graph=graph) as session:
            session.run(v1.global_variables_initializer())
            prefix = saver.save(session, str(folder / "model.ckpt"))
    return Path(prefix + ".meta")


def save_saved_model(optimizer: str, folder: Path) -> Path:
    """The network's variables initialised and saved as a TF1 SavedModel (tag "train") at `folder`."""
    graph, train = build_training_graph(optimizer)
    with graph.as_default():
        v1.add_to_collection(v1.GraphKeys.TRAIN_OP, train)
        with v1.Session(graph=graph) as session:
            session.run(v1.global_variables_initializer())
            builder = v1.saved_model.Builder(str(folder))
            builder.add_meta_graph_and_variables(session, ["train"])
            builder.save()
    return folder


def training_inputs() -> dict:
    rng = np.random.default_rng(3)
    labels = np.eye(CLASSES, dtype=np.float32)[rng.integers(0, CLASSES, BATCH)]
    return {"x": rng.standard_normal((BATCH, 6, 6, 3)).astype(np.float32), "labels": labels}

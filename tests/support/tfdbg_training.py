"""Small TensorFlow training runs dumped by tfdbg, for the tf tests and the dumps committed under
tests/data/tfdbg/ (run with a TensorFlow 2.x python, from the project root, once per root):
    $TF_PYTHON -m tests.support.tfdbg_training tests/data/tfdbg v1_sgd|v1_adam|v2_sgd

A tiny training network (conv, batch norm, dense, dropout, a tf.cond, softmax cross-entropy; SGD
in one graph and Adam in the other) takes two training steps after its initialisation, once with
tfdbg v1 (DumpingDebugWrapperSession, graph mode) and once with tfdbg v2
(enable_dump_debug_info, FULL_TENSOR, a tf.function). Beside each root, expected.npz records what
TensorFlow's own readers (debug_data.DebugDumpDir, DebugDataReader) give for every tensor, keyed
"{step}|{op}|{slot}", so the main suite checks opdiff's readers without TensorFlow."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any, Dict, List

import numpy as np

SEED = 7
BATCH, SIZE, CHANNELS, CLASSES = 2, 4, 2, 3


def inputs() -> Any:
    rng = np.random.default_rng(SEED)
    images = rng.standard_normal((BATCH, SIZE, SIZE, 1)).astype(np.float32)
    labels = np.eye(CLASSES, dtype=np.float32)[rng.integers(0, CLASSES, BATCH)]
    return images, labels


def network(tf: Any, images: Any, labels: Any, variables: Dict[str, Any], training: Any) -> Any:
    """Forward pass: conv -> fused batch norm -> relu -> dropout -> tf.cond -> dense -> softmax CE."""
    conv = tf.nn.conv2d(images, variables["kernel"], strides=1, padding="SAME", name="conv")
    normed, _, _ = tf.compat.v1.nn.fused_batch_norm(conv, variables["gamma"], variables["beta"], is_training=True, name="bn")
    relu = tf.nn.relu(normed, name="relu")
    dropped = tf.nn.dropout(relu, rate=0.25, seed=SEED, name="dropout")
    chosen = tf.cond(training, lambda: dropped * 1.0, lambda: relu, name="cond")
    flat = tf.reshape(chosen, [BATCH, SIZE * SIZE * CHANNELS], name="flatten")
    logits = tf.add(tf.matmul(flat, variables["weights"], name="dense"), variables["bias"], name="logits")
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits), name="loss")


def initial_values() -> Dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED + 1)
    return {"kernel": rng.standard_normal((3, 3, 1, CHANNELS)).astype(np.float32) * 0.5,
            "gamma": np.ones(CHANNELS, np.float32), "beta": np.zeros(CHANNELS, np.float32),
            "weights": rng.standard_normal((SIZE * SIZE * CHANNELS, CLASSES)).astype(np.float32) * 0.1,
            "bias": np.zeros(CLASSES, np.float32)}


def dump_v1(tf: Any, root: Path, optimizer: str) -> None:
    from tensorflow.python import debug as tf_debug

    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(SEED)
        images = tf.compat.v1.placeholder(tf.float32, [BATCH, SIZE, SIZE, 1], name="x")
        labels = tf.compat.v1.placeholder(tf.float32, [BATCH, CLASSES], name="labels")
        variables = {name: tf.compat.v1.get_variable(name, initializer=value) for name, value in initial_values().items()}
        loss = network(tf, images, labels, variables, tf.constant(True, name="training"))
        opt = (tf.compat.v1.train.GradientDescentOptimizer(0.1) if optimizer == "sgd"
               else tf.compat.v1.train.AdamOptimizer(0.01))
        train = opt.minimize(loss, name="train")
        init = tf.compat.v1.global_variables_initializer()
        feeds = dict(zip((images, labels), inputs()))
        config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
        with tf.compat.v1.Session(graph=graph, config=config) as session:
            debug = tf_debug.DumpingDebugWrapperSession(session, str(root))
            debug.run(init)
            for _ in range(2):
                debug.run(train, feed_dict=feeds)


def dump_v2(tf: Any, root: Path) -> None:
    variables = {name: tf.Variable(value, name=name) for name, value in initial_values().items()}
    images, labels = (tf.constant(v) for v in inputs())

    @tf.function
    def train_step(images: Any, labels: Any) -> Any:
        with tf.GradientTape() as tape:
            loss = network(tf, images, labels, variables, tf.constant(True))
        grads = tape.gradient(loss, list(variables.values()))
        for variable, grad in zip(variables.values(), grads):
            tf.raw_ops.ResourceApplyGradientDescent(var=variable.handle, alpha=tf.constant(0.1), delta=grad)
        return loss

    tf.random.set_seed(SEED)
    tf.debugging.experimental.enable_dump_debug_info(str(root), tensor_debug_mode="FULL_TENSOR", circular_buffer_size=-1)
    for _ in range(2):
        train_step(images, labels)
    tf.debugging.experimental.disable_dump_debug_info()


def expected_v1(root: Path) -> Dict[str, np.ndarray]:
    from tensorflow.python.debug.lib import debug_data

    found: Dict[str, np.ndarray] = {}
    runs = sorted((p for p in root.iterdir() if p.name.startswith("run_")), key=lambda p: int(p.name.split("_")[2]))
    for number, run in enumerate(runs):
        reader = debug_data.DebugDumpDir(str(run))
        for datum in reader.dumped_tensor_data:
            value = datum.get_tensor()
            if isinstance(value, np.ndarray) and value.dtype != object:
                found[f"{number}|{datum.node_name}|{datum.output_slot}|{datum.timestamp}"] = value
    return found


def expected_v2(root: Path) -> Dict[str, np.ndarray]:
    from tensorflow.python.debug.lib import debug_events_reader

    found: Dict[str, np.ndarray] = {}
    with debug_events_reader.DebugDataReader(str(root)) as reader:
        reader.update()
        counts: Dict[str, int] = {}
        for trace in reader.graph_execution_traces():
            key = f"{trace.op_name}|{trace.output_slot}"
            occurrence = counts.get(key, 0)
            counts[key] = occurrence + 1
            found[f"{occurrence}|{key}"] = np.asarray(reader.graph_execution_trace_to_tensor_value(trace))
    return found


def main(argv: List[str]) -> int:
    import tensorflow as tf

    out, kind = Path(argv[1]), argv[2] if len(argv) > 2 else "v1_sgd"
    shutil.rmtree(out / kind, ignore_errors=True)
    if kind == "v2_sgd":  # v2 dumps eager and tf.function executions: eager mode, its own process
        dump_v2(tf, out / kind)
        np.savez_compressed(out / f"{kind}.expected.npz", **expected_v2(out / kind))
        # what opdiff does not read, and TensorFlow's sources (the bulk of .source_files), stay out
        for suffix in (".source_files", ".stack_frames", ".graphs"):
            for stream in (out / kind).glob(f"*{suffix}"):
                stream.write_bytes(b"")
    else:
        tf.compat.v1.disable_eager_execution()
        dump_v1(tf, out / kind, kind.split("_")[1])
        np.savez_compressed(out / f"{kind}.expected.npz", **expected_v1(out / kind))
    print(tf.__version__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""tfdbg v1's dump of one training step, for the dump-tf --train-op tests: run as
``python -m tests.support.tf_training_tfdbg MODEL.ckpt.meta INPUTS_DIR MANIFEST OUT`` with
TF_DETERMINISTIC_OPS=1 (op determinism is process-wide and refuses unseeded random ops at graph
build, so it lives in a process of its own). The checkpoint's meta graph gets the random seeds
that dump-tf's manifest lists, is restored in a session of one thread with TensorFlow's graph
optimiser off, and runs its train op once under DumpingDebugWrapperSession: OUT/run_*/."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def main(meta: Path, inputs: Path, manifest: Path, out: Path) -> None:
    import tensorflow as tf
    from tensorflow.python import debug as tf_debug

    v1 = tf.compat.v1
    meta_graph = v1.MetaGraphDef()
    meta_graph.ParseFromString(meta.read_bytes())
    seeds = {op["op"]: op for op in json.loads(manifest.read_text())["random_ops"]}
    for node in meta_graph.graph_def.node:
        if node.name in seeds and seeds[node.name]["seed"] is not None:
            node.attr["seed"].i, node.attr["seed2"].i = seeds[node.name]["seed"], seeds[node.name]["seed2"]
    config = v1.ConfigProto(device_count={"GPU": 0}, intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    config.graph_options.optimizer_options.opt_level = v1.OptimizerOptions.L0
    config.graph_options.optimizer_options.do_constant_folding = False
    graph = tf.Graph()
    with graph.as_default():
        saver = v1.train.import_meta_graph(meta_graph, clear_devices=True)
        session = v1.Session(graph=graph, config=config)
        saver.restore(session, str(meta.with_suffix("")))
        feeds = {f"{path.stem}:0": np.load(path) for path in inputs.glob("*.npy")}
        tf_debug.DumpingDebugWrapperSession(session, str(out)).run("train", feeds)


if __name__ == "__main__":
    main(*(Path(arg) for arg in sys.argv[1:5]))

"""Each op's own fp16 error, from one CPU run: the model cut at every tensor between two ops
(:mod:`opdiff.producers.onnx.cut_model`), converted to fp16 as an evaluation converts it, and fed
the float32 run's values. Every op then reads the right values rounded to fp16, as a device's fp16
op reads them, and writes its output rounded to fp16: its error against the float32 run is its own,
not one it inherited. This ranks the candidates when neither an isolation CSV nor a comparison of a
device run is given.
"""

from __future__ import annotations

import time
from typing import Dict

from opdiff.precision.candidates import relative_error
from opdiff.precision.evaluate import CpuEvaluator


def own_fp16_errors(evaluator: CpuEvaluator) -> Dict[str, float]:
    """Each node's own error (the largest relative L2 error of its outputs) in an fp16 run of
    `evaluator`'s model with nothing kept (but its ops kept in every run), every node fed the
    float32 run's values."""
    from opdiff.producers.onnx.cut_model import cut_every_node, cut_types
    from opdiff.producers.onnx.fp16_model import convert_to_fp16
    from opdiff.producers.onnx.runner import run_exposing_all

    golden = evaluator.tensors
    cut = cut_every_node(evaluator.model, golden, evaluator.types)
    # the fp32 ops are the uncut model's: a gray op of a mixlist follows its upstream op, not a cut input
    half = convert_to_fp16(cut.model, evaluator.keep_types, cut_types(evaluator.types, cut), keep_nodes=evaluator.fp32_nodes(frozenset()))
    started = time.perf_counter()
    tensors = run_exposing_all(half.run_model(), cut.feeds(evaluator.feeds, golden), threads=evaluator.threads,
                               only=golden.keys()).tensors
    evaluator.reference_seconds += time.perf_counter() - started
    return {node.name: max((relative_error(tensors.get(t), golden.get(t)) for t in node.output if t), default=0.0)
            for node in evaluator.model.graph.node}

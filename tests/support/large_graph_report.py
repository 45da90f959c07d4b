"""A Report with a graph of any size, for the HTML graph view's tests and benchmark: a FusionMap of
``layer{L}/block{B}/{type}_{k}`` ops (a chain inside each block, a residual edge around it) and
one output row per op, with metrics computed by the core on small generated arrays. One op, about
60% of the way along, is faulty: the advisor names it as the culprit and the error it starts
carries on downstream.

>>> report, fm = large_graph_report(200)
>>> len(fm.ops), report.graph is fm, report.summary()["failing"] > 0
(200, True, True)
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Tuple

import numpy as np

from opdiff.graph.fusion_map import FusionMap, Op
from opdiff.graph.grouping import build_fusion_map
from opdiff.graph.provenance import make_op
from opdiff.numerics.core_adapter import metrics
from opdiff.report.tensor.views import TENSOR_VIEWS
from opdiff.results.columns import CsvColumns
from opdiff.results.rows import CompareRow, TensorId
from opdiff.results.scenario import Scenario
from opdiff.results.tensor_report import Report

BLOCK_TYPES = ("Conv2D", "BatchNorm", "Relu", "Conv2D", "BatchNorm", "Add", "Relu", "MatMul")


def _graph_ops(ops: int, ops_per_block: int, blocks_per_layer: int) -> List[Op]:
    made = [make_op("input", "Data", id_=0)]
    block_input = "input"
    for k in range(1, ops):
        block, at = divmod(k - 1, ops_per_block)
        layer, block_in_layer = divmod(block, blocks_per_layer)
        type_ = "Add" if at == ops_per_block - 1 else BLOCK_TYPES[at % len(BLOCK_TYPES)]
        name = f"layer{layer}/block{block_in_layer}/{type_.lower()}_{k}"
        inputs = [f"{made[-1].name}:0"]
        if type_ == "Add" and block_input != made[-1].name:
            inputs.append(f"{block_input}:0")  # the residual around the block
        made.append(make_op(name, type_, id_=k, inputs=inputs))
        if at == ops_per_block - 1:
            block_input = name
    return made


def large_graph_report(ops: int, *, ops_per_block: int = 20, blocks_per_layer: int = 25, elements: int = 64,
                       seed: int = 0) -> Tuple[Report, FusionMap]:
    """A report of `ops` ops (the first a Data op without a dump) and the FusionMap it was matched through."""
    rng = np.random.default_rng(seed)
    fm = build_fusion_map("large_graph", [("g", _graph_ops(ops, ops_per_block, blocks_per_layer))])
    report = Report(Scenario.NPU_VS_GOLDEN, Path("my_dump"), Path("golden"), CsvColumns(my_address=True, golden_address=False),
                    graph=fm, views=TENSOR_VIEWS)
    golden = rng.standard_normal((16, elements)).astype(np.float32)
    faulty = max(1, int(ops * 0.6))
    for k, op in enumerate(fm.ops):
        if op.is_data:
            report.rows.append(CompareRow(index=k, op_type=op.type, npu_dump=op.name, ground_truth=op.name,
                                          tensor=TensorId(op.name), reasons=("no dump of a Data op",)))
            continue
        # error starts tiny, jumps at the faulty op and stays large after it
        error = 1e-4 if k < faulty else (0.3 if k == faulty else 0.05)
        y = golden[k % 16]
        x = (y * (1 + error * rng.standard_normal(elements))).astype(np.float16)
        report.rows.append(CompareRow(index=k, op_type=op.type, npu_dump=op.name, ground_truth=op.name,
                                      tensor=TensorId(op.name, "output", 0), my_dtype="float16", golden_dtype="float32",
                                      shape=(1, elements), metrics=metrics(x, y)))
    return report, fm

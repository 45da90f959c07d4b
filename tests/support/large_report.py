"""A Report of any size without dump files, for report-writer tests and benchmarks: every row's
metrics are computed by the core on small generated arrays (error growing slowly along the rows,
with a few faulty tensors), so the numbers are real, only the dumps are skipped.

>>> report = large_report(50)
>>> len(report.rows), report.summary()["failing"] > 0
(50, True)
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from opdiff.numerics.core_adapter import metrics
from opdiff.report.tensor.views import TENSOR_VIEWS
from opdiff.results.columns import CsvColumns
from opdiff.results.rows import CompareRow, TensorId
from opdiff.results.scenario import Scenario
from opdiff.results.tensor_report import Report

OP_TYPES = ("Conv2D", "Relu", "Add", "MatMul", "BatchNorm", "Softmax")


def large_report(rows: int, *, elements: int = 256, seed: int = 0) -> Report:
    """A report of `rows` rows: outputs of ops in a chain, every 50th row without a golden partner,
    rows 16, 1013, 2010, ... (every 997th) faulty, cosine far below 0.99."""
    rng = np.random.default_rng(seed)
    golden = rng.standard_normal((16, elements)).astype(np.float32)
    report = Report(Scenario.NPU_VS_GOLDEN, Path("my_dump"), Path("golden"), CsvColumns(my_address=True, golden_address=False),
                    views=TENSOR_VIEWS)
    for i in range(rows):
        op = f"layer{i // 2}/{OP_TYPES[i % len(OP_TYPES)].lower()}_{i}"
        base = CompareRow(index=i // 2, op_type=OP_TYPES[i % len(OP_TYPES)], npu_dump=op, ground_truth=op,
                          tensor=TensorId(op, "output", 0), my_address=str(0x10000 + 512 * i))
        if i % 50 == 49:
            report.rows.append(replace(base, shape=(1, elements), reasons=(f"[{op}] There is no the ground truth dump file.",)))
            continue
        y = golden[i % 16]
        error = 1e-4 * (1 + i / max(rows, 1)) * (3000.0 if i % 997 == 16 else 1.0)
        x = (y * (1 + error * rng.standard_normal(elements))).astype(np.float16)
        report.rows.append(replace(base, my_dtype="float16", golden_dtype="float32", shape=(1, elements),
                                   metrics=metrics(x, y)))
    return report

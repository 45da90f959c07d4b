"""Typed use of the public API: tests/package/test_typing.py runs mypy on this file, which must pass cleanly.

Every annotation here is checked against opdiff's inline hints (py.typed) and the _core stubs, so a
hint that goes missing (Any) or wrong fails the suite. Not run; only type-checked.
"""

from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

import opdiff
from opdiff import _core
from opdiff.results.rows import CompareRow


def metric_fields() -> Tuple[float, int, float, Tuple[opdiff.Note, ...]]:
    golden = np.linspace(-1, 1, 100, dtype=np.float32)
    result: opdiff.Metrics = opdiff.metrics(golden.astype(np.float16), golden, algorithms=["CosineSimilarity"])
    side: opdiff.SideStats = result.x
    return result.cosine_similarity, result.max_absolute_error_index, side.std, result.notes


def network(my: Path, golden: Path, rule: Path) -> Optional[str]:
    report = opdiff.compare(my, golden, fusion_rule=rule, threads=2)
    assert isinstance(report, opdiff.Report)  # a StatisticsReport when a side holds statistics dumps
    summary: Dict[str, int] = report.summary()
    worst: List[CompareRow] = report.worst(5)
    first = report.first_failure()
    csv_path: Path = report.to_csv(my / "result.csv")
    return f"{summary} {len(worst)} {csv_path}" if first is None else None


def files(path: Path) -> int:
    dump: opdiff.DumpFile = opdiff.read_dump(path)
    name: str = dump.op_name
    opened: _core.TensorFile = _core.open_tensor_file(str(path))
    shape: List[int] = _core.TensorView(opened, "output", 0).shape
    active: str = opdiff.simd_info()["active"]
    return len(shape) + len(active) + len(opdiff.ALGORITHMS) + len(name) + len(dump.tensors)

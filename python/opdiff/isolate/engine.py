"""``--isolate``: every compared NPU op whose original ops are nodes of the source model, re-run alone
on the device's own inputs, and its outputs compared with that local golden. The result is the
report's rows with ``CompareRow.local`` set on each output row of those ops."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from opdiff.dumps.reader import DumpFile, read_dump
from opdiff.graph import FusionMap, Op
from opdiff.isolate.decode import Dumped, logical_array
from opdiff.isolate.source_graph import SourceGraph
from opdiff.isolate.subgraph import NotIsolated
from opdiff.isolate.tensor_map import desc_tensor, input_source, producer_desc
from opdiff.isolate.weights import weight_mismatches
from opdiff.numerics.core_adapter import metrics
from opdiff.numerics.values import Metrics
from opdiff.results.isolation import error_measure
from opdiff.results.local_error import LocalError
from opdiff.results.rows import CompareRow
from opdiff.results.tensor_report import Report

# The metrics of a local comparison: the pass finds everything the local verdict reads.
LOCAL_ALGORITHMS = ("CosineSimilarity", "MaxAbsoluteError")


@dataclass
class IsolationRun:
    """The rows with their local errors, how many ops were considered and isolated, the sessions
    built, and the seconds it took."""

    rows: List[CompareRow]
    ops: int
    isolated_ops: int
    sessions: int
    seconds: float


def isolate(report: Report, fusion_map: FusionMap, source: SourceGraph) -> IsolationRun:
    """Each NPU op of `report` whose original ops are nodes of `source` (the ONNX model or the
    frozen TensorFlow graph), re-run alone on the inputs of the NPU dump file the comparison read
    for it (``report.my_files``: the comparison's own plans, whatever rules and ids chose them)."""
    started = time.perf_counter()
    by_op: Dict[str, List[int]] = {}
    for position, row in enumerate(report.rows):
        if row.tensor.role is not None and row.tensor.run in (None, 0):
            by_op.setdefault(row.tensor.op, []).append(position)
    runner = _Runner(fusion_map, source)
    rows = list(report.rows)
    ops = isolated = 0
    for op_name, positions in by_op.items():
        op = fusion_map.get(op_name)
        if op is None or not any(source.has_node(name) for name in op.original_names if name):
            continue
        op_rows = [rows[k] for k in positions]
        outputs = [k for k in positions if rows[k].tensor.role == "output"]
        if not outputs:
            continue
        ops += 1
        locals_ = runner.op_locals(op, [rows[k] for k in outputs], report.my_files.get(op_name))
        amplification = _amplifications(op_rows, [rows[k] for k in outputs])
        for k, local, amp in zip(outputs, locals_, amplification):
            rows[k] = replace(rows[k], local=replace(local, amplification=amp))
        isolated += any(local.isolated for local in locals_)
    return IsolationRun(rows, ops, isolated, source.sessions, time.perf_counter() - started)


def _amplifications(op_rows: Sequence[CompareRow], outputs: Sequence[CompareRow]) -> List[float]:
    """Each output's end-to-end error over the worst end-to-end error of the op's compared inputs."""
    inputs = [row for row in op_rows if row.tensor.role == "input" and row.compared]
    if not inputs:
        return [math.nan] * len(outputs)
    worst = max(error_measure(row.metrics) for row in inputs)
    found = []
    for row in outputs:
        if not row.compared:
            found.append(math.nan)
            continue
        error = error_measure(row.metrics)
        found.append(error / worst if worst > 0 else (math.inf if error > 0 else 1.0))
    return found


class _Runner:
    def __init__(self, fusion_map: FusionMap, source: SourceGraph) -> None:
        self.fusion_map, self.source = fusion_map, source

    def op_locals(self, op: Op, outputs: Sequence[CompareRow], path: Optional[str]) -> List[LocalError]:
        original = tuple(name for name in op.original_names if name)
        try:
            return self._isolated(op, original, outputs, path)
        except NotIsolated as error:
            return [LocalError(original, reason=str(error)) for _ in outputs]

    def _isolated(self, op: Op, original: Tuple[str, ...], outputs: Sequence[CompareRow], path: Optional[str]) -> List[LocalError]:
        missing = [name for name in original if not self.source.has_node(name)]
        if missing:
            raise NotIsolated(f"no mapping: original op {missing[0]} is not a node of {self.source.path.name}")
        if path is None:
            raise NotIsolated("input without a dump: the op has no dump file")
        dump = read_dump(path)
        targets = {row.tensor.index or 0: desc_tensor(op, row.tensor.index or 0, self.source) for row in outputs}
        mapped = [tensor for tensor in targets.values() if tensor is not None]
        if not mapped:
            raise NotIsolated("no mapping: no output desc of the op names a tensor of the model")
        fed: Dict[str, Dumped] = {}
        for k, ref in enumerate(op.inputs):
            source = input_source(self.fusion_map, self.source, ref)
            if source.tensor is not None and k < len(dump.inputs):
                fed.setdefault(source.tensor, Dumped(dump.inputs[k], producer_desc(self.fusion_map, ref)))
        golden = self.source.local_golden(original, fed, list(dict.fromkeys(mapped)))
        checked = self._weight_check(op, original, dump)
        found = []
        for row in outputs:
            tensor = targets[row.tensor.index or 0]
            if tensor is None:
                found.append(LocalError(original, reason="no mapping: the output desc names no tensor of the model",
                                        weight_mismatches=checked))
                continue
            found.append(self._compare(op, original, dump, row.tensor.index or 0, golden[tensor], checked))
        return found

    def _weight_check(self, op: Op, original: Tuple[str, ...], dump: DumpFile) -> Tuple[str, ...]:
        if len(original) != 1:
            return ()
        return weight_mismatches(op, self.source.node_inputs(original[0]), self.fusion_map, dump.inputs, self.source.weight)

    def _compare(self, op: Op, original: Tuple[str, ...], dump: DumpFile, k: int, golden: np.ndarray,
                 checked: Tuple[str, ...]) -> LocalError:
        if k >= len(dump.outputs):
            return LocalError(original, reason=f"input without a dump: the dump holds no output {k}", weight_mismatches=checked)
        mine = logical_array(dump.outputs[k], op.output_descs[k] if k < len(op.output_descs) else None)
        if mine.size != golden.size:
            return LocalError(original, reason=f"no mapping: the local golden has {golden.size} elements, the dump {mine.size}",
                              weight_mismatches=checked)
        if mine.dtype.kind not in "fiub":
            mine = mine.astype(np.float32)
        found: Metrics = metrics(np.ascontiguousarray(mine), np.ascontiguousarray(golden.astype(np.float32, copy=False)),
                                 algorithms=LOCAL_ALGORITHMS, threads=1)
        return LocalError(original, metrics=found, weight_mismatches=checked)

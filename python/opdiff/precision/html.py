"""The HTML report of a search: compare's own HTML report (graph view, chart, table), of the run
with nothing kept against the float32 run, one row per candidate op, with the kept ops marked kept
("kept in fp32", "left unquantized": Mode.kept_as) on the graph and in the findings, each with its
evidence: what keeping it gains at the outputs. A kept op is the fix, not a culprit: it need not
fail on its own inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Mapping, Optional, Sequence, Tuple

import numpy as np

from opdiff.graph import FusionMap
from opdiff.numerics.core_adapter import metrics as compare_arrays
from opdiff.precision.candidates import Candidate
from opdiff.precision.evaluate import Mode
from opdiff.producers.onnx.support import OnnxModel
from opdiff.results.findings import Finding
from opdiff.results.rows import CompareRow, TensorId


@dataclass(frozen=True)
class GraphRows:
    """The graph of the model (its fusion rule, as dump-onnx writes one) and one row per candidate:
    its first output in the run with nothing kept against the float32 run."""

    graph: FusionMap
    rows: List[CompareRow]


def graph_rows(model: OnnxModel, input_names: Mapping[str, str], candidates: Sequence[Candidate],
               mine: Mapping[str, np.ndarray], golden: Mapping[str, np.ndarray], my_dtype: str) -> GraphRows:
    """The :class:`GraphRows` of a prepared `model` from the two runs' tensors."""
    from opdiff.producers.onnx.fusion_rule import build_fusion_rule
    from opdiff.producers.onnx.lineage import recover_lineage, tensor_origins

    origins = tensor_origins(model, input_names)
    lineage = recover_lineage(model, origins, model, input_names)
    graph = build_fusion_rule(model.graph.name or "model", model, input_names, lineage, origins, golden)
    nodes = {node.name: node for node in model.graph.node}
    pairs = {}
    for candidate in candidates:
        tensor = next((t for t in nodes[candidate.name].output if t), "")
        pairs[candidate.name] = (mine.get(tensor), golden.get(tensor))
    return GraphRows(graph, _rows(candidates, pairs, my_dtype))


def _rows(candidates: Sequence[Candidate], pairs: Mapping[str, Tuple[Optional[np.ndarray], Optional[np.ndarray]]],
          my_dtype: str) -> List[CompareRow]:
    """One row per candidate, in graph order, whose (mine, golden) pair in `pairs` has two sides of one shape."""
    rows: List[CompareRow] = []
    for candidate in sorted(candidates, key=lambda c: c.position):
        a, b = pairs.get(candidate.name, (None, None))
        if a is None or b is None or np.shape(a) != np.shape(b):
            continue
        rows.append(CompareRow(len(rows), candidate.op_type, candidate.name, candidate.name, TensorId(candidate.name, "output", 0),
                               my_dtype=my_dtype, golden_dtype="float32", shape=tuple(np.shape(b)),
                               metrics=compare_arrays(a, b)))  # the core decodes fp16 itself: no float32 copies
    return rows


def device_rows(dump: Path, rule: Path, candidates: Sequence[Candidate], golden: Mapping[str, np.ndarray],
                my_dtype: str) -> GraphRows:
    """The :class:`GraphRows` of a device run (its dumps under `dump`, its rule `rule`, as the
    device loop's step folder holds them): the rule's graph, and each candidate's first output
    found in the dumps against `golden` (``op:0``); ValueError when the run has no dump file."""
    from opdiff.graph import read_graph
    from opdiff.precision.device import read_tensors

    found, _ = read_tensors(dump, rule, {c.name: (c.name, 0, "a candidate") for c in candidates})
    pairs = {c.name: (found.get(c.name), golden.get(f"{c.name}:0")) for c in candidates}
    return GraphRows(read_graph(rule), _rows(candidates, pairs, my_dtype))


def write_precision_html(view: GraphRows, kept: Sequence[str], gains: Mapping[str, str], path: Path, *, mode: Mode) -> Path:
    """The page at `path`: the report of `view`, with `kept` marked kept and `gains` (op -> text)
    as each kept op's evidence."""
    from opdiff.report.tensor.html_writer import write_html_report
    from opdiff.results.columns import CsvColumns
    from opdiff.results.scenario import Scenario
    from opdiff.results.tensor_report import Report

    report = Report(Scenario.NPU_VS_GOLDEN, Path("nothing kept"), Path("float32"), CsvColumns(), list(view.rows),
                    quantized=mode is Mode.INT8, graph=view.graph)
    index = {row.tensor.op: row for row in view.rows}
    advice = "leave unquantized (AMCT skip_layers)" if mode is Mode.INT8 else "keep in fp32 (ATC --keep_dtype)"
    findings = [Finding(mode.kept_as, name, index[name].tensor_index if name in index else f"{name}:output:0",
                        index[name].index if name in index else -1, gains.get(name, ""), advice)
                for name in kept]
    return write_html_report(report, path, findings)

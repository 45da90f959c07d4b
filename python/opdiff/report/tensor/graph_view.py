"""The data of the HTML report's graph view: the compared model's NPU ops as nodes, with each op's
verdict, marks (culprit, first divergence, the path from a model input to it; on a precision
search's page, the ops it keeps) and rows.

The graph is the fusion rule the comparison matched through (``Report.graph``): its ops, and data
edges from each op's inputs. Without a rule (NPU vs NPU by name) it is the ops the dumps name, in
execution order, each linked to the next by an "order" edge (the dumps say nothing about data flow).
Ops the dumps name that the rule lacks are nodes too, without edges: every NPU op has its node.

The page (html/graph.js) lays it out with dagre and draws it in SVG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from opdiff.graph.fusion_map import FusionMap
from opdiff.results.findings import Finding, FindingKind
from opdiff.results.op_verdict import OpVerdict, op_verdict
from opdiff.results.rows import CompareRow
from opdiff.results.tensor_report import Report
from opdiff.results.verdict import Verdict


@dataclass
class _Node:
    name: str
    type: str
    original_names: Tuple[str, ...] = ()
    inputs: List[int] = field(default_factory=list)  # positions of the producers, one per data edge
    rows: List[int] = field(default_factory=list)  # positions in report.rows


def _off_by(row: CompareRow) -> float:
    """How far a failing row is off, 0 (just failing) to 1 (unrelated): the larger of 1 - cosine on a
    log scale from 1e-6 to 1 and NormRatioError on a log scale from 1e-4 to 1; NaN counts as 1."""
    m = row.metrics
    if m is None:
        return 0.0

    def scaled(value: float, decades: float) -> float:
        if math.isnan(value):
            return 1.0
        return min(1.0, max(0.0, (math.log10(value) + decades) / decades)) if value > 0 else 0.0

    return max(scaled(1.0 - m.cosine_similarity, 6.0), scaled(m.norm_ratio_error, 4.0))


def _nodes(report: Report) -> Tuple[List[_Node], str]:
    """The graph's nodes (rule ops first, then ops only the dumps name) and where they came from."""
    graph: Optional[FusionMap] = report.graph
    nodes: List[_Node] = []
    at: Dict[str, int] = {}
    if graph is not None:
        for op in graph.ops:
            if op.name not in at:  # duplicate names: the first op stands for the name, as FusionMap.op does
                at[op.name] = len(nodes)
                nodes.append(_Node(op.name, op.type, op.original_names))
        for op in graph.ops:
            node = nodes[at[op.name]]
            if not node.inputs:
                node.inputs = [at[ref.producer] for ref in op.inputs if ref.producer in at]
    for position, row in enumerate(report.rows):
        name = row.tensor.op
        if name not in at:
            at[name] = len(nodes)
            originals = tuple(part for part in row.ground_truth.split(",") if part and part != "*")
            nodes.append(_Node(name, row.op_type, originals))
            if graph is None and len(nodes) > 1:
                nodes[-1].inputs = [len(nodes) - 2]  # execution order, not data flow
        nodes[at[name]].rows.append(position)
    return nodes, "fusion rule" if graph is not None else "dump order"


def _path_to(start: int, nodes: List[_Node], verdicts: List[OpVerdict], worst: List[float]) -> List[int]:
    """From a model input to `start`: walk back through the producer that matches worst (failing
    first, then the most off), until an op without producers."""
    path, seen = [start], {start}
    while True:
        producers = [p for p in nodes[path[0]].inputs if p not in seen]
        if not producers:
            return path
        step = max(producers, key=lambda p: (verdicts[p] is OpVerdict.FAIL, worst[p]))
        path.insert(0, step)
        seen.add(step)


def graph_view_json(report: Report, findings: Sequence[Finding], judge: Verdict) -> Dict[str, Any]:
    """The graph view's data, column-wise (one list per field, one entry per op; ``inputs`` and
    ``rows`` hold positions into ``ops`` and the report's rows).

    >>> import numpy as np
    >>> from pathlib import Path
    >>> from opdiff.numerics.core_adapter import metrics
    >>> from opdiff.results.columns import CsvColumns
    >>> from opdiff.results.rows import TensorId
    >>> from opdiff.results.scenario import Scenario
    >>> y = np.linspace(1, 2, 64, dtype=np.float32)
    >>> rows = [CompareRow(index=k, op_type="Relu", npu_dump=f"relu{k}", ground_truth=f"relu{k}", tensor=TensorId(f"relu{k}", "output", 0),
    ...                    my_dtype="float16", golden_dtype="float32", metrics=metrics(y.astype(np.float16), y)) for k in range(6)]
    >>> report = Report(Scenario.NPU_VS_GOLDEN, Path("npu"), Path("golden"), CsvColumns(), rows)
    >>> view = graph_view_json(report, [], report.verdict())
    >>> view["source"], len(view["ops"]), view["inputs"][:3], view["verdicts"][:2]
    ('dump order', 6, [[], [0], [1]], ['pass', 'pass'])
    """
    nodes, source = _nodes(report)
    verdicts, worst = [], []
    for node in nodes:
        rows = [report.rows[i] for i in node.rows]
        verdicts.append(op_verdict(rows, judge))
        worst.append(max((_off_by(row) for row in rows if row.compared and judge.fails(row)), default=0.0))
    at = {node.name: i for i, node in enumerate(nodes)}
    culprits = sorted({at[f.op] for f in findings if f.kind is FindingKind.CULPRIT and f.op in at})
    divergence = next((at[f.op] for f in findings if f.kind in (FindingKind.CULPRIT, FindingKind.ACCUMULATED_DRIFT)
                       and f.op in at), None)
    if divergence is None:
        first = report.first_failure(judge)
        divergence = at[first.tensor.op] if first is not None else None
    view: Dict[str, Any] = {
        "source": source,
        "name": report.graph.name if report.graph is not None else "",
        "ops": [node.name for node in nodes],
        "types": [node.type for node in nodes],
        "originals": [list(node.original_names) for node in nodes],
        "inputs": [node.inputs for node in nodes],
        "rows": [node.rows for node in nodes],
        "verdicts": [verdict.value for verdict in verdicts],
        "off_by": [round(value, 2) for value in worst],
        "culprits": culprits,
        "first_divergence": divergence,
        "path": [] if divergence is None else _path_to(divergence, nodes, verdicts, worst),
        # --isolate's local verdict per op ("pass", "fail", "not-isolated") goes here once it exists;
        # the page then sets data-local on every op's element.
        "local": None,
    }
    kept = {at[f.op]: f.kind.value for f in findings if f.kind.is_kept and f.op in at}
    if kept:  # only a precision search's page keeps ops: a comparison's data stays as it was
        view["kept"] = sorted(kept)
        view["kept_as"] = [kept[i] for i in view["kept"]]  # each one's label: "kept in fp32", "left unquantized"
    return view

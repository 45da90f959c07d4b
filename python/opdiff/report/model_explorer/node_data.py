"""``--report model-explorer``: Model Explorer node-data files of a comparison, one per metric, as
``{result stem}.{metric}.node_data.json`` beside the result CSV, and ``{result stem}.model_explorer.json``
recording the rule the comparison used (``opdiff view`` loads that graph when no --model is given).

A node-data file is Model Explorer's own JSON (``model_explorer.node_data_builder``): per graph id,
``results`` keyed by node id, each a number (0.1.x takes numbers only) and the background colour of
the op's verdict. Node ids are the NPU op names, as opdiff.viewer names the nodes. Without a rule
(NPU vs NPU by name) there is no graph id: the file is a single graph's node data, which Model
Explorer applies to the graph it shows.

Per op (an op's rows are its input and output tensors, every run under ``--all``):

* ``cosine``: the lowest CosineSimilarity of its compared tensors; ``norm_ratio_error``: the highest
  NormRatioError. A NaN is left out (JSON has none): the verdict shows the op failing.
* ``verdict``: 0 pass, 1 fail (any compared tensor fails), 2 not compared (none was), coloured by
  its thresholds.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from opdiff.fileio.atomic import RESULT_MODE, write_text
from opdiff.report.model_explorer.graph_id import graph_id, rule_kind
from opdiff.results.findings import Finding
from opdiff.results.isolation import error_measure
from opdiff.results.op_verdict import OpVerdict, op_verdict
from opdiff.results.rows import CompareRow
from opdiff.results.tensor_report import Report
from opdiff.results.verdict import Verdict

SIDECAR_SUFFIX = ".model_explorer.json"
NODE_DATA_SUFFIX = ".node_data.json"
SIDECAR_SCHEMA = "opdiff-model-explorer/1"
ONNX_INFIX = ".onnx"  # {result stem}.onnx.{metric}.node_data.json: node data keyed by ONNX node names (--isolate)


# A verdict as a node-data value (Model Explorer 0.1.x takes numbers only).
NODE_VALUE = {OpVerdict.PASS: 0, OpVerdict.FAIL: 1, OpVerdict.NOT_COMPARED: 2}

COLOURS = {OpVerdict.PASS: "#a5d6a7", OpVerdict.FAIL: "#ef9a9a", OpVerdict.NOT_COMPARED: "#e0e0e0"}

# Model Explorer colours a value v by the first threshold with v <= value.
VERDICT_THRESHOLDS = [{"value": NODE_VALUE[verdict], "bgColor": colour} for verdict, colour in COLOURS.items()]


@dataclass(frozen=True)
class OpNumbers:
    """What the node data says of one NPU op."""

    verdict: OpVerdict
    cosine: Optional[float]
    norm_ratio_error: Optional[float]


def _finite(values: List[float]) -> List[float]:
    return [value for value in values if not math.isnan(value)]


def op_numbers(report: Report, judge: Verdict) -> Dict[str, OpNumbers]:
    """Each op's numbers, by op name, in row (Index) order."""
    rows_of: Dict[str, List[CompareRow]] = {}
    for row in report.rows:
        rows_of.setdefault(row.tensor.op, []).append(row)
    numbers = {}
    for name, rows in rows_of.items():
        metrics = [row.metrics for row in rows if row.metrics is not None]
        cosines = _finite([m.cosine_similarity for m in metrics])
        norms = _finite([m.norm_ratio_error for m in metrics])
        numbers[name] = OpNumbers(op_verdict(rows, judge), min(cosines, default=None), max(norms, default=None))
    return numbers


def graph_node_data(values: Mapping[str, float], colours: Mapping[str, str], *, thresholds: Sequence[Mapping[str, Any]] = ()
                    ) -> Dict[str, Any]:
    """One graph's node data (``GraphNodeData``): a result per node, a number with its colour."""
    results = {node: {"value": value, "bgColor": colours[node]} for node, value in values.items()}
    return {"results": results, "thresholds": list(thresholds)}


def node_data_documents(report: Report, judge: Verdict, graph: Optional[str],
                        extra: Optional[Mapping[str, Mapping[str, float]]] = None) -> Dict[str, Dict[str, Any]]:
    """The node-data documents by metric. `extra` adds metrics by name (op name -> value):
    ``local_error`` under --isolate."""
    numbers = op_numbers(report, judge)
    colours = {name: COLOURS[op.verdict] for name, op in numbers.items()}
    per_metric: Dict[str, Dict[str, Any]] = {
        "cosine": graph_node_data({n: op.cosine for n, op in numbers.items() if op.cosine is not None}, colours),
        "norm_ratio_error": graph_node_data(
            {n: op.norm_ratio_error for n, op in numbers.items() if op.norm_ratio_error is not None}, colours),
        "verdict": graph_node_data({n: NODE_VALUE[op.verdict] for n, op in numbers.items()}, colours,
                                   thresholds=VERDICT_THRESHOLDS),
    }
    for metric, values in (extra or {}).items():
        per_metric[metric] = graph_node_data({n: v for n, v in values.items() if n in colours and not math.isnan(v)},
                                             colours)
    if graph is None:
        return per_metric
    return {metric: {graph: document} for metric, document in per_metric.items()}


def sidecar_path(stem_path: Path) -> Path:
    """Where the record of a result's node data goes: ``{result stem}.model_explorer.json``."""
    return stem_path.with_name(stem_path.name + SIDECAR_SUFFIX)


def local_errors(report: Report) -> Dict[str, float]:
    """Each isolated NPU op's own error (--isolate): the worst error measure of its outputs re-run
    alone (results.isolation.error_measure: max(1 - cosine, NormRatioError^2 / 2)), by op name."""
    worst: Dict[str, float] = {}
    for row in report.rows:
        if row.local is not None and row.local.metrics is not None:
            value = error_measure(row.local.metrics)
            worst[row.tensor.op] = max(value, worst.get(row.tensor.op, value))
    return worst


# Which of several NPU ops holding one ONNX node shows its numbers: a failing one first.
_SEVERITY = {OpVerdict.FAIL: 2, OpVerdict.PASS: 1, OpVerdict.NOT_COMPARED: 0}


def onnx_node_documents(report: Report, judge: Verdict) -> Dict[str, Dict[str, Any]]:
    """Node data keyed by the source ONNX model's node names (--isolate MODEL.onnx): each original op
    takes the numbers of the NPU op it was fused into (the worst, where several hold it). Written
    without a graph id: Model Explorer applies it to the ONNX graph it shows."""
    numbers = op_numbers(report, judge)
    own = local_errors(report)
    owner: Dict[str, str] = {}  # ONNX node -> the NPU op holding it, the worst verdict first
    for row in report.rows:
        if row.local is None or row.tensor.op not in numbers:
            continue
        for node in row.local.original_ops:
            held = owner.get(node)
            if held is None or _SEVERITY[numbers[row.tensor.op].verdict] > _SEVERITY[numbers[held].verdict]:
                owner[node] = row.tensor.op
    colours = {node: COLOURS[numbers[op].verdict] for node, op in owner.items()}
    cosines = {node: numbers[op].cosine for node, op in owner.items()}
    per_metric: Dict[str, Dict[str, Any]] = {
        "cosine": graph_node_data({node: value for node, value in cosines.items() if value is not None}, colours),
        "verdict": graph_node_data({n: NODE_VALUE[numbers[op].verdict] for n, op in owner.items()}, colours, thresholds=VERDICT_THRESHOLDS),
    }
    if own:
        per_metric["local_error"] = graph_node_data({n: own[op] for n, op in owner.items() if op in own}, colours)
    return per_metric


def _write_documents(documents: Mapping[str, Dict[str, Any]], stem_path: Path, infix: str) -> Dict[str, str]:
    files: Dict[str, str] = {}
    for metric, document in documents.items():
        target = stem_path.with_name(f"{stem_path.name}{infix}.{metric}{NODE_DATA_SUFFIX}")
        write_text(target, json.dumps(document, allow_nan=False), mode=RESULT_MODE)
        files[metric] = target.name
    return files


def write_model_explorer_node_data(report: Report, path: Path, findings: Sequence[Finding], verdict: Verdict) -> Path:
    """Write the node-data files of `report` beside `path` (``{result stem}.model-explorer``), then the
    record naming them and the rule; returns the record's path. With --isolate, also ``local_error``
    and the ONNX-keyed files ``{result stem}.onnx.{metric}.node_data.json``."""
    stem_path = path.with_suffix("")
    rule = report.graph
    kind = rule_kind(rule) if rule is not None else None
    graph = graph_id(rule, kind) if rule is not None else None
    own = local_errors(report)
    files = _write_documents(node_data_documents(report, verdict, graph, extra={"local_error": own} if own else None),
                             stem_path, "")
    isolated = any(row.local is not None for row in report.rows)
    onnx_files = _write_documents(onnx_node_documents(report, verdict), stem_path, ONNX_INFIX) if isolated else {}
    record = {
        "schema": SIDECAR_SCHEMA,
        # the rule's file, when the comparison read one; opdiff view shows its graph
        "rule": str(Path(rule.source).resolve()) if kind is not None and rule is not None else None,
        "rule_kind": kind.name if kind is not None else None,
        "graph_id": graph,
        "node_data": files,
        "onnx_node_data": onnx_files,
        "verdict": verdict.name,
        "colours": {verdict_.name.lower(): colour for verdict_, colour in COLOURS.items()},
    }
    return write_text(sidecar_path(stem_path), json.dumps(record, indent=2) + "\n", mode=RESULT_MODE)

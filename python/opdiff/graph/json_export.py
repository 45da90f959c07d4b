"""Writing a FusionMap as an `atc --mode=1`-compatible JSON (the shape of docs/reference/reference-tool.md §3.2)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Union

from opdiff.fileio.atomic import write_text
from opdiff.graph import provenance as pv
from opdiff.graph.fusion_map import FusionMap, Op, OutputDesc
from opdiff.graph.gc_pause import gc_paused

PathLike = Union[str, "os.PathLike[str]"]


def export_atc_json(source: Any) -> Dict[str, Any]:
    """The atc JSON document of a FusionMap (or of anything with a `.fusion_map`, such as an OmModel).

    Reading the document back (`fusion_map_from_json`) gives an equal FusionMap.

    >>> from opdiff.graph.atc_json import fusion_map_from_json
    >>> from opdiff.graph.grouping import build_fusion_map
    >>> from opdiff.graph.provenance import make_op
    >>> fm = build_fusion_map("m", [("g", [make_op("x", "Data"), make_op("y", "Relu", inputs=["x:0"])])])
    >>> fusion_map_from_json(export_atc_json(fm)) == fm
    True
    """
    fusion_map: FusionMap = source if isinstance(source, FusionMap) else source.fusion_map
    graphs: Dict[str, List[Dict[str, Any]]] = {graph: [] for graph in fusion_map.graphs}
    with gc_paused():
        for op in fusion_map.ops:
            graphs.setdefault(op.graph, []).append(_op_json(op))
    return {"name": fusion_map.name, "graph": [{"name": name, "op": ops} for name, ops in graphs.items()]}


def write_atc_json(source: Any, path: PathLike) -> Path:
    """Write `export_atc_json(source)` to `path` (a temporary name first, then renamed).

    >>> import os, tempfile
    >>> from opdiff.graph.grouping import build_fusion_map
    >>> from opdiff.graph.provenance import make_op
    >>> from opdiff.graph.read import read_graph
    >>> fm = build_fusion_map("m", [("g", [make_op("x", "Data")])])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     read_graph(write_atc_json(fm, os.path.join(folder, "m.json"))) == fm
    True
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    # json.dumps, not json.dump: only the one-shot encoder runs in C.
    with gc_paused():
        text = json.dumps(export_atc_json(source), ensure_ascii=False, separators=(",", ":"))
    write_text(target, text)
    return target


def _op_json(op: Op) -> Dict[str, Any]:
    entry: Dict[str, Any] = {"name": op.name, "type": op.type}
    if op.id:
        entry["id"] = op.id  # atc omits proto3 defaults
    if op.inputs:
        entry["input"] = [str(ref) for ref in op.inputs]
    # The synthetic desc of an op that had neither names attribute nor descs: write neither, so
    # that reading back synthesises the same desc again.
    synthetic = op.output_descs == (OutputDesc(op.name, None),) and op.original_names == (op.name,)
    attrs = [] if synthetic else [_attr(pv.ORIGINAL_OP_NAMES, {"list": {"s": list(op.original_names), "val_type": "VT_LIST_STRING"}})]
    if op.l1_fusion_sub_graph_no:
        attrs.append(_attr(pv.L1_FUSION_SUB_GRAPH_NO, {"s": op.l1_fusion_sub_graph_no}))
    if op.is_multiop:
        attrs.append(_attr(pv.IS_MULTIOP, {"b": True}))
    if attrs:
        entry["attr"] = attrs
    if op.output_descs and not synthetic:
        entry["output_desc"] = [_desc_json(desc) for desc in op.output_descs]
    return entry


def _desc_json(desc: OutputDesc) -> Dict[str, Any]:
    attrs = []
    if desc.origin_name:
        attrs.append(_attr(pv.ORIGIN_NAME, {"s": desc.origin_name}))
    if desc.origin_output_index is not None:
        attrs.append(_attr(pv.ORIGIN_OUTPUT_INDEX, {"i": desc.origin_output_index}))
    if desc.origin_format:
        attrs.append(_attr(pv.ORIGIN_FORMAT, {"s": desc.origin_format}))
    if desc.ge_origin_format:
        attrs.append(_attr(pv.GE_ORIGIN_FORMAT, {"s": desc.ge_origin_format}))
    if desc.origin_shape is not None:
        attrs.append(_attr(pv.ORIGIN_SHAPE, {"list": {"i": list(desc.origin_shape), "val_type": "VT_LIST_INT"}}))
    entry: Dict[str, Any] = {"dtype": desc.dtype} if desc.dtype else {}
    entry["attr"] = attrs
    return entry


def _attr(key: str, value: Dict[str, Any]) -> Dict[str, Any]:
    return {"key": key, "value": value}

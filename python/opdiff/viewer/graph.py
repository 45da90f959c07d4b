"""A FusionMap as a Model Explorer graph: one node per NPU op, id = op name, the op name's '/'
scopes as namespaces, data edges from the op's inputs; attributes: type, original ops; per output:
dtype, layout and shape (of the framework tensor it stands for, as the rule records it)."""

from __future__ import annotations

from pathlib import Path
from typing import List

from model_explorer import graph_builder as gb

from opdiff.graph.fusion_map import FusionMap, Op
from opdiff.graph.read import detect_graph_kind, read_graph
from opdiff.report.model_explorer.graph_id import graph_id


def _node(op: Op, known: set[str]) -> gb.GraphNode:
    namespace, _, label = op.name.rpartition("/")
    attrs = [gb.KeyValue(key="type", value=op.type),
             gb.KeyValue(key="original ops", value=", ".join(name for name in op.original_names if name))]
    if op.graph:
        attrs.append(gb.KeyValue(key="graph", value=op.graph))
    edges = [gb.IncomingEdge(sourceNodeId=ref.producer, sourceNodeOutputId=str(ref.index), targetNodeInputId=str(i))
             for i, ref in enumerate(op.inputs) if ref.producer in known]
    outputs = [gb.MetadataItem(id=str(i), attrs=[
        gb.KeyValue(key="dtype", value=desc.dtype),
        gb.KeyValue(key="layout", value=desc.origin_format),
        gb.KeyValue(key="shape", value="" if desc.origin_shape is None else str(list(desc.origin_shape))),
        gb.KeyValue(key="original tensor", value=f"{desc.origin_name}:{desc.origin_output_index}" if desc.origin_name else ""),
    ]) for i, desc in enumerate(op.output_descs)]
    return gb.GraphNode(id=op.name, label=label or op.name, namespace=namespace, attrs=attrs, incomingEdges=edges,
                        outputsMetadata=outputs)


def model_explorer_graph(fusion_map: FusionMap, graph: str) -> gb.Graph:
    """The graph `graph` of `fusion_map`'s ops; a duplicated op name keeps its first op, as
    FusionMap.op does, and an input from an op the map lacks has no edge."""
    known = {op.name for op in fusion_map.ops}
    nodes: List[gb.GraphNode] = []
    seen: set[str] = set()
    for op in fusion_map.ops:
        if op.name not in seen:
            seen.add(op.name)
            nodes.append(_node(op, known))
    return gb.Graph(id=graph, nodes=nodes)


def read_model_explorer_graph(path: Path) -> gb.Graph:
    """The graph of the model file at `path` (.om, OM2, atc JSON, GE graph dump), named by its graph id."""
    kind = detect_graph_kind(path)
    fusion_map = read_graph(path)
    return model_explorer_graph(fusion_map, graph_id(fusion_map, kind))

"""The id of a model's graph in Model Explorer: the adapter (opdiff.viewer) names the graph with it,
and the node-data files are keyed by it, so both must take it from here."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from opdiff.graph.errors import GraphFormatError
from opdiff.graph.fusion_map import FusionMap
from opdiff.graph.read import GraphKind, detect_graph_kind

# A rule in atc JSON form (and the JSON inside an OM2 package) names its model by graph[0].name;
# an .om and a GE graph dump by the model's own name.
_NAMED_BY_FIRST_GRAPH = (GraphKind.ATC_JSON, GraphKind.OM2)


def graph_id(fusion_map: FusionMap, kind: Optional[GraphKind]) -> str:
    """The graph id of `fusion_map`, read from a file of `kind` (None: not read from a file).

    >>> from opdiff.graph.grouping import build_fusion_map
    >>> fm = build_fusion_map("resnet50", [("resnet50_graph", [])])
    >>> graph_id(fm, GraphKind.ATC_JSON), graph_id(fm, GraphKind.OM), graph_id(build_fusion_map("", [("", [])]), None)
    ('resnet50_graph', 'resnet50', 'model')
    """
    first_graph = fusion_map.graphs[0] if fusion_map.graphs else ""
    if kind in _NAMED_BY_FIRST_GRAPH:
        chosen = first_graph or fusion_map.name
    else:
        chosen = fusion_map.name or first_graph
    return chosen or (Path(fusion_map.source).stem if fusion_map.source else "") or "model"


def rule_kind(fusion_map: FusionMap) -> Optional[GraphKind]:
    """The kind of the file `fusion_map` was read from, or None when it was built in memory (or the
    file is gone)."""
    if not fusion_map.source or not os.path.isfile(fusion_map.source):
        return None
    try:
        return detect_graph_kind(fusion_map.source)
    except GraphFormatError:
        return None

"""Fusion provenance of offline models: .om files and `atc --mode=1` JSON into one FusionMap.

The public names are imported on first use (PEP 562), as in the `opdiff` package: `opdiff graph`
needs the readers, not the quant and close-fusion merges or the JSON export.
"""

from typing import TYPE_CHECKING

from opdiff._lazy_exports import lazy_exports

# public name -> module that defines it
_EXPORTS = {
    "GraphFormatError": "opdiff.graph.errors",
    "FusionGroup": "opdiff.graph.fusion_map",
    "FusionMap": "opdiff.graph.fusion_map",
    "InputRef": "opdiff.graph.fusion_map",
    "Op": "opdiff.graph.fusion_map",
    "OutputDesc": "opdiff.graph.fusion_map",
    "Relation": "opdiff.graph.fusion_map",
    "merge_close_fusion": "opdiff.graph.close_fusion",
    "export_atc_json": "opdiff.graph.json_export",
    "write_atc_json": "opdiff.graph.json_export",
    "QuantFilter": "opdiff.graph.quant",
    "merge_quant_rule": "opdiff.graph.quant",
    "quant_filter": "opdiff.graph.quant",
    "read_graph": "opdiff.graph.read",
}

__all__ = [
    "FusionGroup",
    "FusionMap",
    "GraphFormatError",
    "InputRef",
    "Op",
    "OutputDesc",
    "QuantFilter",
    "Relation",
    "export_atc_json",
    "merge_close_fusion",
    "merge_quant_rule",
    "quant_filter",
    "read_graph",
    "write_atc_json",
]
assert set(__all__) == set(_EXPORTS), "every lazily exported name is listed"


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


if TYPE_CHECKING:  # for type checkers and IDEs: the same names, imported eagerly
    from opdiff.graph.close_fusion import merge_close_fusion
    from opdiff.graph.errors import GraphFormatError
    from opdiff.graph.fusion_map import FusionGroup, FusionMap, InputRef, Op, OutputDesc, Relation
    from opdiff.graph.json_export import export_atc_json, write_atc_json
    from opdiff.graph.quant import QuantFilter, merge_quant_rule, quant_filter
    from opdiff.graph.read import read_graph

"""Fusion provenance of offline models: .om files and `atc --mode=1` JSON into one FusionMap, and
the writers of both (a fusion rule built op by op, as atc JSON or as an .om) for test data.

The public names are imported on first use (PEP 562), as in the `opdiff` package: `opdiff graph`
needs the readers, not the quant and close-fusion merges or the JSON export.
"""

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
    "RuleOp": "opdiff.graph.rule_builder",
    "RuleOutput": "opdiff.graph.rule_builder",
    "fusion_rule": "opdiff.graph.rule_builder",
    "write_fusion_map_om": "opdiff.graph.om.writer",
}

# The public names are the table's keys (__init__.pyi imports each one for type checkers;
# tests/package/test_public_api.py keeps the two equal).
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

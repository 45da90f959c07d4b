"""Fusion provenance of offline models: .om files and `atc --mode=1` JSON into one FusionMap."""

from opdiff.graph.errors import GraphFormatError
from opdiff.graph.fusion_map import FusionGroup, FusionMap, InputRef, Op, OutputDesc, Relation
from opdiff.graph.close_fusion import merge_close_fusion
from opdiff.graph.json_export import export_atc_json, write_atc_json
from opdiff.graph.quant import QuantFilter, merge_quant_rule, quant_filter
from opdiff.graph.read import read_graph

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

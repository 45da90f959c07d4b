"""Fusion provenance of offline models: .om files and `atc --mode=1` JSON into one FusionMap."""

from opdiff.graph.errors import GraphFormatError
from opdiff.graph.fusion_map import FusionGroup, FusionMap, InputRef, Op, OutputDesc, Relation

__all__ = ["FusionGroup", "FusionMap", "GraphFormatError", "InputRef", "Op", "OutputDesc", "Relation"]

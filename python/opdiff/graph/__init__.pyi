"""Types of the names opdiff.graph exports lazily (__init__.py)."""

from opdiff.graph.close_fusion import merge_close_fusion as merge_close_fusion
from opdiff.graph.errors import GraphFormatError as GraphFormatError
from opdiff.graph.fusion_map import FusionGroup as FusionGroup
from opdiff.graph.fusion_map import FusionMap as FusionMap
from opdiff.graph.fusion_map import InputRef as InputRef
from opdiff.graph.fusion_map import Op as Op
from opdiff.graph.fusion_map import OutputDesc as OutputDesc
from opdiff.graph.fusion_map import Relation as Relation
from opdiff.graph.json_export import export_atc_json as export_atc_json
from opdiff.graph.json_export import write_atc_json as write_atc_json
from opdiff.graph.om.writer import write_fusion_map_om as write_fusion_map_om
from opdiff.graph.quant import QuantFilter as QuantFilter
from opdiff.graph.quant import merge_quant_rule as merge_quant_rule
from opdiff.graph.quant import quant_filter as quant_filter
from opdiff.graph.read import read_graph as read_graph
from opdiff.graph.rule_builder import RuleOp as RuleOp
from opdiff.graph.rule_builder import RuleOutput as RuleOutput
from opdiff.graph.rule_builder import fusion_rule as fusion_rule

"""The quantisation naming rules of Ascend models (docs/reference/reference-tool.md §2.1, §2.5, §3.4), in one
place: which op names mark a quantized model's dump, which ops dequantize (their inputs are not
compared), the patterns of the quant filter, and the op types that quantize.

>>> is_quantized_name("conv1_quant_layer"), is_dequant_op("fc_dequant", "MatMul"), is_dequant_op("fc", "Relu")
(True, True, False)
"""

from __future__ import annotations

import re

# §2.1: a dump side is "quant" when some op name contains one of these (the reference's list).
QUANT_MARKERS = (
    "_quant_layer", "_anti_quant_layer", "AscendQuant", "AscendWeightQuant", "AntiQuant", "_quant",
    "_weight_quant", "_anti_quant", "_dequant_layer", "AscendDequant", "_dequant",
)  # fmt: skip
# §2.5 step 5: the inputs of these ops are not compared (name suffixes, or the type AscendDequant).
DEQUANT_SUFFIXES = ("_dequant_layer", "AscendDequant", "_dequant")
DEQUANT_OP_TYPE = "AscendDequant"
# §3.4: the quant filter's patterns, read in an op's name and in its original names (dequant first:
# `_anti_quant_layer` also contains `_quant_layer`).
QUANT_FILTER_PATTERN = re.compile(r"_quant_layer|/AscendQuant|/AscendWeightQuant|\.quant|\.weight_quant")
DEQUANT_FILTER_PATTERN = re.compile(r"_dequant_layer|_anti_quant_layer|/AscendDequant|/AntiQuant|\.dequant|\.anti_quant")
# Text every quant marker and every alternative of both patterns holds: a name without it matches
# none of them (a fast first test; tests/graph/test_graph_quant_close.py checks it).
QUANT_FILTER_MARK = "uant"
# Op types that turn float tensors into integer codes: a graph holding one is a quantized model.
QUANTIZE_OP_TYPES = frozenset({"AscendQuant", "AscendWeightQuant", "QuantizeLinear", "DynamicQuantizeLinear"})


def is_quantized_name(name: str) -> bool:
    """The op name carries a quant marker (§2.1)."""
    return QUANT_FILTER_MARK in name and any(marker in name for marker in QUANT_MARKERS)


def is_dequant_op(name: str, op_type: str) -> bool:
    """A dequantizing op, whose inputs the reference does not compare (§2.5)."""
    return op_type == DEQUANT_OP_TYPE or name.endswith(DEQUANT_SUFFIXES)

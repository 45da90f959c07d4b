"""Quant-rule merge (-q), quant filter and close-fusion merge (-cf), from small hand-written atc JSON."""

from opdiff.graph import OutputDesc, Relation, merge_close_fusion, merge_quant_rule, quant_filter
from opdiff.graph.atc_json import fusion_map_from_json
from opdiff.graph.quant import QuantNameKind, QuantOutputKind, quant_name_kind


def names_attr(*names):
    return {"key": "_datadump_original_op_names", "value": {"list": {"s": list(names), "val_type": 1}}}


def desc(origin=None, index=None, fmt=None, dtype="DT_FLOAT16", shape=None):
    attrs = []
    if origin is not None:
        attrs.append({"key": "_datadump_origin_name", "value": {"s": origin}})
    if index is not None:
        attrs.append({"key": "_datadump_origin_output_index", "value": {"i": index}})
    if fmt is not None:
        attrs.append({"key": "_datadump_origin_format", "value": {"s": fmt}})
    if shape is not None:
        attrs.append({"key": "origin_shape", "value": {"list": {"i": shape, "val_type": 2}}})
    return {"dtype": dtype, "attr": attrs}


def rule(*ops):
    return fusion_map_from_json({"name": "m", "graph": [{"name": "g", "op": list(ops)}]})


def op(name, type_, *attrs, inputs=(), descs=None):
    entry = {"name": name, "type": type_, "attr": list(attrs), "input": list(inputs)}
    if descs is not None:
        entry["output_desc"] = descs
    return entry


QUANT_RULE = rule(
    op("x", "Data", descs=[desc("x", 0, "NCHW")]),
    op("conv1", "Conv2D", names_attr("conv1"), descs=[desc("conv1", 0, "NCHW", shape=[1, 8, 4, 4])]),
    op("conv1_dequant_layer", "AscendDequant", names_attr("conv1"), descs=[desc("conv1", 0, "NCHW", shape=[1, 8, 4, 4])]),
    op("relu1", "Relu", names_attr("relu1"), descs=[desc("relu1", 0, "NHWC"), desc("relu1", 1, "NHWC")]),
)


def test_quant_merge_maps_names_and_descs_back_to_the_float_model():
    offline = rule(
        op("x", "Data", descs=[desc("x", 0)]),
        op("conv1_fused", "Conv2D", names_attr("conv1", "conv1_dequant_layer"), inputs=["x:0"],
           descs=[desc("conv1_dequant_layer", 0, "NC1HWC0", dtype="DT_FLOAT16")]),
        op("relu1", "Relu", inputs=["conv1_fused:0"]),  # no provenance: synthetic desc, index None
        op("other", "Add", names_attr("not_in_quant"), descs=[desc("not_in_quant", 0)]),
        op("bad_index", "Mul", names_attr("b"), descs=[desc("relu1", 5)]),
    )
    assert offline.group_of("conv1_fused").relation is Relation.MULTI_TO_ONE
    merged = merge_quant_rule(offline, QUANT_RULE)
    conv = merged.op("conv1_fused")
    # both names resolve to the quant group "conv1" (two quant ops) -> deduplicated to one name
    assert conv.original_names == ("conv1",)
    assert merged.group_of("conv1_fused").relation is Relation.ONE_TO_ONE  # regrouped
    # desc replaced by conv1_dequant_layer's desc 0, keeping the offline format; shape from the quant rule
    assert conv.output_descs == (OutputDesc("conv1", 0, "NC1HWC0", (1, 8, 4, 4), "DT_FLOAT16"),)
    # an index of None takes every desc of the quant op
    assert [(d.origin_name, d.origin_output_index, d.origin_format) for d in merged.op("relu1").output_descs] == [
        ("relu1", 0, "NHWC"), ("relu1", 1, "NHWC")]
    assert merged.op("other") == offline.op("other")
    assert merged.op("bad_index").output_descs == offline.op("bad_index").output_descs
    assert merged.warnings == ("op 'bad_index': quant rule op 'relu1' has no output 5",)
    assert [g.index for g in merged.groups] == list(range(len(merged.groups)))


def test_quant_name_kinds():
    quant = rule(
        op("a_quant_layer", "AscendQuant"), op("n/AscendQuant", "AscendQuant"), op("w.weight_quant", "X"),
        op("c_dequant_layer", "AscendDequant"), op("d_anti_quant_layer", "AntiQuant"), op("e.anti_quant", "X"),
        op("plain", "Relu"), op("renamed", "Relu", names_attr("conv", "conv.quant")),
    )
    kinds = {o.name: quant_name_kind(o) for o in quant.ops}
    assert kinds == {
        "a_quant_layer": QuantNameKind.QUANT, "n/AscendQuant": QuantNameKind.QUANT, "w.weight_quant": QuantNameKind.QUANT,
        "c_dequant_layer": QuantNameKind.DEQUANT, "d_anti_quant_layer": QuantNameKind.DEQUANT,
        "e.anti_quant": QuantNameKind.DEQUANT, "plain": QuantNameKind.NONE, "renamed": QuantNameKind.QUANT,
    }


def test_quant_filter_skips_ops_inside_a_quant_dequant_pair():
    fm = rule(
        op("x", "Data", descs=[desc("x", 0)]),
        op("conv1_quant_layer", "AscendQuant", inputs=["x:0"], descs=[desc(dtype="DT_INT8")]),
        op("conv1", "Conv2D", inputs=["conv1_quant_layer:0"], descs=[desc(dtype="DT_INT32")]),
        op("bias", "Add", inputs=["conv1:0"], descs=[desc(dtype="DT_INT32")]),
        op("conv1_dequant_layer", "AscendDequant", inputs=["bias:0"], descs=[desc(dtype="DT_FLOAT16")]),
        op("relu", "Relu", inputs=["conv1_dequant_layer:0"], descs=[desc()]),
        op("odd_quant_layer", "AscendQuant", inputs=["relu:0"], descs=[desc(dtype="DT_FLOAT16")]),
        op("tail", "Relu", inputs=["odd_quant_layer:0"], descs=[desc()]),
    )
    result = quant_filter(fm)
    assert result.skipped_ops == {"conv1", "bias"}
    assert result.output_kinds["conv1_quant_layer"] == (QuantOutputKind.QUANT,)
    assert result.output_kinds["bias"] == (QuantOutputKind.MIDDLE,)
    assert result.output_kinds["conv1_dequant_layer"] == (QuantOutputKind.DEQUANT,)
    assert result.output_kinds["relu"] == (QuantOutputKind.NORMAL,)
    assert result.output_kinds["odd_quant_layer"] == (QuantOutputKind.NORMAL,)  # not int8: not a quant output
    assert not result.is_skipped("tail") and result.is_skipped("conv1")


def test_quant_filter_skips_a_dequant_named_op_whose_outputs_are_not_float16():
    fm = rule(
        op("q_quant_layer", "AscendQuant", descs=[desc(dtype="DT_INT8")]),
        op("d_dequant_layer", "AscendDequant", inputs=["q_quant_layer:0"], descs=[desc(dtype="DT_FLOAT")]),
    )
    assert quant_filter(fm).skipped_ops == {"d_dequant_layer"}


CLOSE_RULE = rule(
    op("x", "Data", descs=[desc("x", 0)]),
    op("conv_npu", "Conv2D", names_attr("conv"), descs=[desc("conv", 0)]),
    op("relu_npu", "Relu", names_attr("relu"), descs=[desc("relu", 0)]),
    op("add_npu", "Add", names_attr("add"), descs=[desc("x", 0), desc("add", 0)]),
    op("trans_Cast_3", "Cast", names_attr(), descs=[desc("add", 0)]),
)


def test_close_fusion_merge_maps_onto_fusion_off_op_names_and_keeps_grouping():
    open_rule = rule(
        op("x", "Data", descs=[desc("x", 0)]),
        op("conv_relu", "Conv2D", names_attr("conv", "relu"), descs=[desc("relu", 0)]),
        op("add", "Add", names_attr("add"), descs=[desc("add", 0)]),
        op("ghost_op", "Mul", names_attr("ghost"), descs=[desc("ghost", 0)]),
        op("odd", "Mul", names_attr("relu"), descs=[desc("relu", 1)]),
    )
    merged = merge_close_fusion(open_rule, CLOSE_RULE)
    conv = merged.op("conv_relu")
    assert conv.original_names == ("conv_npu", "relu_npu")
    assert conv.output_descs == (OutputDesc("relu_npu", 0, "", None, "DT_FLOAT16"),)
    # (add, 0) is the second desc of add_npu
    assert merged.op("add").output_descs[0].origin_name == "add_npu"
    assert merged.op("add").output_descs[0].origin_output_index == 1
    assert merged.op("ghost_op") == open_rule.op("ghost_op")
    assert merged.op("odd").output_descs[0] == OutputDesc("relu_npu", 1, "", None, "DT_FLOAT16")
    assert merged.warnings == (
        "op 'ghost_op': original name 'ghost' is not in the close-fusion rule",
        "op 'odd': close-fusion op 'relu_npu' has no output for relu:1",
    )
    # grouping, indices and relations are those of the open rule; group names follow the mapping
    assert [(g.key, g.index, g.op_names, g.relation) for g in merged.groups] == [
        (g.key, g.index, g.op_names, g.relation) for g in open_rule.groups]
    assert merged.group_of("conv_relu").original_names == ("conv_npu", "relu_npu")


def test_every_quant_filter_pattern_holds_the_fast_mark() -> None:
    """quant_text_kind and is_quantized_name skip their tests for names without QUANT_FILTER_MARK:
    sound only while every alternative of both patterns, and every marker, contains it."""
    from opdiff.conventions.quant_names import DEQUANT_FILTER_PATTERN, QUANT_FILTER_MARK, QUANT_FILTER_PATTERN, QUANT_MARKERS

    for pattern in (QUANT_FILTER_PATTERN, DEQUANT_FILTER_PATTERN):
        for alternative in pattern.pattern.split("|"):
            assert QUANT_FILTER_MARK in alternative.replace("\\", ""), alternative
    assert all(QUANT_FILTER_MARK in marker for marker in QUANT_MARKERS)

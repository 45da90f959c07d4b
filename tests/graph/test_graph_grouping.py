"""Grouping, relations and defaults of docs/reference/reference-tool.md §3.3, from small hand-written atc JSON."""

import uuid

import pytest

from opdiff.graph import InputRef, OutputDesc, Relation
from opdiff.graph.atc_json import fusion_map_from_json


def names_attr(*names):
    value = {"list": {"s": list(names), "val_type": 1}} if names else {"list": {"val_type": 1}}
    return {"key": "_datadump_original_op_names", "value": value}


def desc(origin=None, index=None, fmt=None, shape=None, dtype="DT_FLOAT16", ge_format=None):
    attrs = []
    if origin is not None:
        attrs.append({"key": "_datadump_origin_name", "value": {"s": origin}})
    if index is not None:
        attrs.append({"key": "_datadump_origin_output_index", "value": {"i": index}})
    if fmt is not None:
        attrs.append({"key": "_datadump_origin_format", "value": {"s": fmt}})
    if ge_format is not None:
        attrs.append({"key": "origin_format", "value": {"s": ge_format}})
    if shape is not None:
        attrs.append({"key": "origin_shape", "value": {"list": {"i": shape, "val_type": 2}}})
    return {"dtype": dtype, "attr": attrs}


def op(name, type_, *attrs, inputs=None, descs=None, id_=None):
    entry = {"name": name, "type": type_, "attr": list(attrs)}
    if inputs is not None:
        entry["input"] = inputs
    if descs is not None:
        entry["output_desc"] = descs
    if id_ is not None:
        entry["id"] = id_
    return entry


def doc(*ops, graphs=None):
    return {"name": "m", "graph": graphs or [{"name": "g", "op": list(ops)}]}


# docs/reference/reference-tool.md §3.7, verbatim.
SPEC_EXAMPLE = {"graph": [{"name": "ge_default_1", "op": [
    {"name": "x", "type": "Data", "id": 0,
     "attr": [{"key": "_datadump_original_op_names", "value": {"list": {"s": ["x"], "val_type": 1}}}],
     "output_desc": [{"dtype": "DT_FLOAT16", "attr": [
         {"key": "_datadump_origin_name", "value": {"s": "x"}},
         {"key": "_datadump_origin_output_index", "value": {"i": 0}},
         {"key": "_datadump_origin_format", "value": {"s": "NCHW"}},
         {"key": "origin_shape", "value": {"list": {"i": [1, 3, 8, 8], "val_type": 2}}}]}]},
    {"name": "conv1/Conv2D_relu_fused", "type": "Conv2D", "id": 1, "input": ["x:0", "x:-1"],
     "attr": [{"key": "_datadump_original_op_names",
               "value": {"list": {"s": ["conv1/Conv2D", "conv1/Relu"], "val_type": 1}}}],
     "output_desc": [{"dtype": "DT_FLOAT16", "attr": [
         {"key": "_datadump_origin_name", "value": {"s": "conv1/Relu"}},
         {"key": "_datadump_origin_output_index", "value": {"i": 0}},
         {"key": "_datadump_origin_format", "value": {"s": "NCHW"}},
         {"key": "origin_shape", "value": {"list": {"i": [1, 16, 8, 8], "val_type": 2}}}]}]}]}]}


def test_spec_example_is_multi_to_one_with_control_edge_dropped():
    fm = fusion_map_from_json(SPEC_EXAMPLE)
    conv = fm.op("conv1/Conv2D_relu_fused")
    assert conv.inputs == (InputRef("x", 0),)
    assert conv.output_descs == (OutputDesc("conv1/Relu", 0, "NCHW", (1, 16, 8, 8), "DT_FLOAT16"),)
    group = fm.group_of(conv.name)
    assert group.relation is Relation.MULTI_TO_ONE
    assert group.original_names == ("conv1/Conv2D", "conv1/Relu")
    assert group.key == str(uuid.uuid3(uuid.NAMESPACE_DNS, "conv1/Conv2Dconv1/Relu"))
    assert [g.index for g in fm.groups] == [0, 1]
    assert fm.group_of("x").relation is Relation.ONE_TO_ONE
    assert [o.name for o in fm.data_ops] == ["x"]
    assert fm.producers(conv.name) == (fm.op("x"),)


def test_missing_names_attr_means_own_name_and_fills_descs():
    fm = fusion_map_from_json(doc(op("relu", "Relu", descs=[desc(), desc("other", 3)])))
    relu = fm.op("relu")
    assert relu.original_names == ("relu",)
    assert relu.output_descs[0].origin_name == "relu"
    assert relu.output_descs[0].origin_output_index == 0  # default: the desc's position
    assert relu.output_descs[1] == OutputDesc("other", 3, "", None, "DT_FLOAT16")


def test_op_without_names_attr_or_descs_gets_one_synthetic_desc():
    fm = fusion_map_from_json(doc(op("relu", "Relu")))
    assert fm.op("relu").output_descs == (OutputDesc("relu", None),)


def test_names_attr_without_values_means_one_empty_name_keyed_by_op_name():
    fm = fusion_map_from_json(doc(op("trans_Cast_0", "Cast", names_attr(), descs=[desc()])))
    cast = fm.op("trans_Cast_0")
    assert cast.original_names == ("",)
    assert fm.groups[0].key == "trans_Cast_0"
    assert fm.groups[0].relation is Relation.ONE_TO_ONE
    # key (own name) differs from the one original name (""): not a rename node, desc stays empty
    assert cast.output_descs[0].origin_name == ""


def test_rename_node_fills_empty_origin_names_with_its_original_name():
    fm = fusion_map_from_json(doc(op("Concat_1211_npu", "ConcatD", names_attr("Concat_1211"), descs=[desc(), desc()])))
    assert [d.origin_name for d in fm.op("Concat_1211_npu").output_descs] == ["Concat_1211", "Concat_1211"]
    assert [d.origin_output_index for d in fm.op("Concat_1211_npu").output_descs] == [0, 1]


def test_one_to_multi_group_keeps_empty_origin_names():
    fm = fusion_map_from_json(doc(
        op("g_const", "Const", names_attr("Gather_1"), descs=[desc()]),
        op("g_gather", "GatherV2", names_attr("Gather_1"), inputs=["g_const:0"], descs=[desc()]),
    ))
    assert len(fm.groups) == 1
    group = fm.groups[0]
    assert group.relation is Relation.ONE_TO_MULTI and group.op_names == ("g_const", "g_gather")
    assert fm.op("g_gather").output_descs[0].origin_name == ""


def test_multi_to_multi_and_l1_fusion_groups():
    fm = fusion_map_from_json(doc(
        op("a1", "Conv2D", names_attr("conv", "relu"), descs=[desc("conv")]),
        op("a2", "Relu", names_attr("conv", "relu"), descs=[desc("relu")]),
        op("l1", "Conv2D", names_attr("c2"), {"key": "_L1_fusion_sub_graph_no", "value": {"s": "7"}}),
        op("l2", "Add", names_attr("add", "mul"), {"key": "_L1_fusion_sub_graph_no", "value": {"s": "7"}}),
    ))
    relations = {g.key: g.relation for g in fm.groups}
    assert relations["7"] is Relation.L1_FUSION
    assert fm.group_of("a1").relation is Relation.MULTI_TO_MULTI
    assert fm.group_of("l2").op_names == ("l1", "l2")
    assert fm.group_of("l2").original_names == ("c2", "add", "mul")
    assert fm.relation_counts[Relation.L1_FUSION] == 1 and fm.relation_counts[Relation.MULTI_TO_MULTI] == 1


def test_index_is_order_of_first_appearance_of_the_key():
    fm = fusion_map_from_json(doc(
        op("b1", "Relu", names_attr("B")),
        op("a", "Relu", names_attr("A")),
        op("b2", "Relu", names_attr("B")),
    ))
    assert [(g.key, g.index, g.op_names) for g in fm.groups] == [("B", 0, ("b1", "b2")), ("A", 1, ("a",))]


def test_duplicate_names_make_multi_to_one_even_if_distinct_names_are_one():
    fm = fusion_map_from_json(doc(op("t", "Transpose", names_attr("Transpose_0", "Transpose_0"))))
    assert fm.groups[0].relation is Relation.MULTI_TO_ONE
    assert fm.groups[0].original_names == ("Transpose_0",)


def test_groups_span_graphs_and_rename_happens_per_graph():
    fm = fusion_map_from_json(doc(graphs=[
        {"name": "root", "op": [op("r", "Relu", names_attr("R"), descs=[desc()])]},
        {"name": "sub", "op": [op("r2", "Relu", names_attr("R"), descs=[desc()])]},
    ]))
    assert fm.graphs == ("root", "sub")
    assert fm.group_of("r2").op_names == ("r", "r2")
    assert fm.op("r").output_descs[0].origin_name == "R"  # lone after the first graph: renamed
    assert fm.op("r2").output_descs[0].origin_name == ""  # joined a group of two
    assert fm.op("r2").graph == "sub"


def test_origin_format_falls_back_to_ge_origin_format_and_shape_can_be_scalar():
    fm = fusion_map_from_json(doc(op("c", "Const", names_attr("c"), descs=[
        {"dtype": "DT_INT64", "attr": [{"key": "origin_format", "value": {"s": "ND"}},
                                       {"key": "origin_shape", "value": {"list": {"val_type": "VT_LIST_INT"}}}]},
    ])))
    assert fm.op("c").output_descs[0] == OutputDesc("c", 0, "ND", (), "DT_INT64")


def test_lxslice_suffixes_are_removed_from_names_and_inputs():
    fm = fusion_map_from_json(doc(
        op("a_lxslice0", "Data"),
        op("b_lxslice12", "Relu", inputs=["a_lxslice0:0"]),
    ))
    assert [o.name for o in fm.ops] == ["a", "b"]
    assert fm.op("b").inputs == (InputRef("a", 0),)


def test_inputs_keep_colons_in_producer_names_and_drop_empty_and_control():
    fm = fusion_map_from_json(doc(op("onnx::Gather_1", "Const"), op("g", "Gather", inputs=["onnx::Gather_1:0", "", "x:-1"])))
    assert fm.op("g").inputs == (InputRef("onnx::Gather_1", 0),)


def test_execution_order_is_topological_with_list_order_tiebreak():
    fm = fusion_map_from_json(doc(
        op("out", "NetOutput", inputs=["b:0", "a:0"]),
        op("b", "Relu", inputs=["x:0"]),
        op("x", "Data"),
        op("a", "Relu", inputs=["x:0"]),
        op("lonely", "Const"),
    ))
    # x is ready first; then b and a (list positions 1, 3); out (position 0) as soon as it is ready
    assert fm.execution_order == ("x", "b", "a", "out", "lonely")
    assert fm.output_refs == (InputRef("b", 0), InputRef("a", 0))


def test_execution_order_survives_a_cycle():
    fm = fusion_map_from_json(doc(op("p", "Relu", inputs=["q:0"]), op("q", "Relu", inputs=["p:0"]), op("x", "Data")))
    assert fm.execution_order == ("x", "p", "q")


@pytest.mark.parametrize("bad_input", ["nocolon", "x:one", ":0"])
def test_malformed_inputs_are_errors(bad_input):
    from opdiff.graph import GraphFormatError

    with pytest.raises(GraphFormatError, match="op 'y'"):
        fusion_map_from_json(doc(op("y", "Relu", inputs=[bad_input])), "rule.json")


def test_duplicate_op_names_are_noted_and_lookup_gives_the_first():
    fm = fusion_map_from_json(doc(graphs=[
        {"name": "root", "op": [op("a", "Relu"), op("b", "Add")]},
        {"name": "sub", "op": [op("a", "Mul")]},
    ]))
    assert fm.op("a").type == "Relu"
    assert fm.warnings == ("1 ops share a name with an earlier op (lookups by name give the first): 'a'",)
    assert fusion_map_from_json(doc(op("a", "Relu"))).warnings == ()


def test_int64_written_as_strings_by_protobuf_json_are_accepted():
    fm = fusion_map_from_json(doc({"name": "a", "type": "T", "id": "7", "output_desc": [
        {"attr": [{"key": "_datadump_origin_output_index", "value": {"i": "2"}},
                  {"key": "origin_shape", "value": {"list": {"i": ["1", "3"]}}}]}]}))
    assert fm.op("a").id == 7
    assert fm.op("a").output_descs[0].origin_output_index == 2
    assert fm.op("a").output_descs[0].origin_shape == (1, 3)

"""Round trips through the project's .om writer, one test per file variant."""

import json
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opdiff
from opdiff.graph import OutputDesc, Relation, export_atc_json
from opdiff.graph.atc_json import fusion_map_from_json
from opdiff.graph.grouping import build_fusion_map
from opdiff.graph.model_def_builder import model_def, model_def_from_fusion_map, op_def, output_desc, simple_model_def
from opdiff.graph.om.partitions import PartitionType
from opdiff.graph.om.reader import read_om
from opdiff.graph.om.writer import (
    FLOW_MODEL,
    FLOW_MODEL_TYPE,
    FLOW_SUBMODEL,
    MODEL_DEF,
    MODEL_INOUT_INFO,
    TASK_INFO,
    TBE_KERNELS,
    WEIGHTS_DATA,
    HeaderFields,
    OmVariant,
    om_bytes,
    write_om,
    write_om2,
)
from opdiff.graph.proto import ge_ir_pb2 as ge
from opdiff.graph.provenance import make_op
from tests.support.attr_compressor import compress


def fused_model_def():
    """Inputs, a fused conv, an L1 pair, a one-to-multi split, an inserted cast and the output."""
    ops = [
        op_def("x", "Data", output_descs=[output_desc(dtype="DT_FLOAT", ge_origin_format="NCHW", origin_shape=[1, 3, 8, 8])]),
        op_def("conv_relu", "Conv2D", id_=1, inputs=["x:0", "x:-1"], original_names=["conv", "relu"],
               output_descs=[output_desc("relu", 0, origin_format="NCHW", origin_shape=[1, 16, 8, 8])]),
        op_def("l1_a", "Conv2D", id_=2, inputs=["conv_relu:0"], original_names=["c2"], l1_fusion_sub_graph_no="5",
               output_descs=[output_desc("c2", 0)]),
        op_def("l1_b", "Add", id_=3, inputs=["l1_a:0"], original_names=["add"], l1_fusion_sub_graph_no="5",
               output_descs=[output_desc("add", 0)]),
        op_def("split_1", "Mul", id_=4, inputs=["l1_b:0"], original_names=["gelu"], is_multiop=True,
               output_descs=[output_desc()]),
        op_def("split_2", "Add", id_=5, inputs=["split_1:0"], original_names=["gelu"], output_descs=[output_desc("gelu", 0)]),
        op_def("trans_Cast_1", "Cast", id_=6, inputs=["split_2:0"], original_names=[],
               output_descs=[output_desc("gelu", 0, dtype="DT_FLOAT")], extra_attrs=[("_input_name_key", "x")]),
        op_def("out", "NetOutput", id_=7, inputs=["trans_Cast_1:0"], original_names=[]),
    ]
    return model_def("fused", [("fused_graph", ops)])


def expected_relations():
    # x, trans_Cast_1, out | conv_relu | split_1+split_2 | l1_a+l1_b
    return {Relation.ONE_TO_ONE: 3, Relation.MULTI_TO_ONE: 1, Relation.ONE_TO_MULTI: 1,
            Relation.MULTI_TO_MULTI: 0, Relation.L1_FUSION: 1}


def json_map(model):
    """The FusionMap of `model` by way of an independent JSON rendering of its provenance."""
    from google.protobuf.json_format import MessageToDict

    doc = MessageToDict(model, preserving_proto_field_name=True)
    for graph in doc.get("graph", []):
        for op in graph["op"]:
            op["attr"] = [{"key": k, "value": _json_value(v)} for k, v in op.get("attr", {}).items()]
            for desc in op.get("output_desc", []):
                desc["attr"] = [{"key": k, "value": _json_value(v)} for k, v in desc.get("attr", {}).items()]
            if "id" in op:
                op["id"] = int(op["id"])
    return fusion_map_from_json(doc)


def _json_value(value):
    import base64

    if "s" in value:
        return {"s": base64.b64decode(value["s"]).decode()}
    if "i" in value:
        return {"i": int(value["i"])}
    if "list" in value:
        listed = dict(value["list"])
        if "s" in listed:
            listed["s"] = [base64.b64decode(s).decode() for s in listed["s"]]
        if "i" in listed:
            listed["i"] = [int(i) for i in listed["i"]]
        return {"list": listed}
    return value


def test_current_generation_single_model(tmp_path):
    model = fused_model_def()
    path = write_om(tmp_path / "m.om", [[(MODEL_INOUT_INFO, b"\0" * 12), (MODEL_DEF, model.SerializeToString()),
                                         (WEIGHTS_DATA, bytes(64)), (TBE_KERNELS, b"k" * 10), (TASK_INFO, b"")]])
    om = read_om(path)
    assert om.header.wide_table and om.header.model_num == 1 and om.header.name == "opdiff_test_model"
    assert (om.header.version, om.header.om_ir_version, om.header.platform_version) == (0x20000000, 2, "1.11.z.0")
    assert om.header.model_length == path.stat().st_size - 256 and om.header.length == 0
    assert [p.type for p in om.submodels[0].partitions] == [
        PartitionType.MODEL_INOUT_INFO, PartitionType.MODEL_DEF, PartitionType.WEIGHTS_DATA,
        PartitionType.TBE_KERNELS, PartitionType.TASK_INFO]
    fm = om.fusion_map
    assert fm == json_map(model)
    assert fm.relation_counts == expected_relations()
    assert fm.op("conv_relu").output_descs == (OutputDesc("relu", 0, "NCHW", (1, 16, 8, 8), "DT_FLOAT16"),)
    assert fm.op("x").output_descs == (OutputDesc("x", 0, "NCHW", (1, 3, 8, 8), "DT_FLOAT"),)
    assert fm.op("split_1").is_multiop and fm.op("l1_b").l1_fusion_sub_graph_no == "5"
    assert fm.warnings == ()


@pytest.mark.parametrize("variant", [OmVariant.V1_0, OmVariant.V2_TINY])
def test_old_generations_use_tiny_table_and_32bit_length(tmp_path, variant):
    data = om_bytes([[(MODEL_DEF, fused_model_def().SerializeToString()), (WEIGHTS_DATA, bytes(7))]], variant=variant)
    assert struct.unpack_from("<Q", data, 184)[0] == 0 and struct.unpack_from("<I", data, 76)[0] == len(data) - 256
    path = tmp_path / "old.om"
    path.write_bytes(data)
    om = read_om(path)
    assert not om.header.wide_table and om.header.length == len(data) - 256
    assert om.header.model_num == (None if variant is OmVariant.V1_0 else 1)
    assert om.header.platform_version == "1.11.z.0"
    assert om.fusion_map == json_map(fused_model_def())


def test_multi_model_file_reads_root_and_each_submodel(tmp_path):
    root = fused_model_def()
    sub1 = model_def("part1", [("sub_graph_1", [op_def("s1", "Relu", original_names=["relu_a", "relu_b"])])])
    sub2 = model_def("part2", [("sub_graph_2", [op_def("s2", "Relu")])])
    path = write_om(tmp_path / "multi.om", [
        [(MODEL_INOUT_INFO, b""), (MODEL_DEF, root.SerializeToString())],
        [(MODEL_DEF, sub1.SerializeToString()), (WEIGHTS_DATA, bytes(3)), (TASK_INFO, b"t")],
        [(MODEL_DEF, sub2.SerializeToString()), (TASK_INFO, b"tt")],
    ], header=HeaderFields(is_unknow_model=1))
    om = read_om(path)
    assert om.header.model_num == 3 and len(om.submodels) == 3
    assert om.fusion_map == json_map(root)
    assert om.submodel_fusion_map(1).group_of("s1").relation is Relation.MULTI_TO_ONE
    assert om.submodel_fusion_map(2).op("s2").original_names == ("s2",)
    assert opdiff.read_graph(path) == om.fusion_map


def test_flow_model_always_uses_the_wide_table(tmp_path):
    model = fused_model_def()
    path = write_om(tmp_path / "flow.om", [[(FLOW_MODEL, b"flow-def"), (MODEL_DEF, model.SerializeToString()),
                                            (FLOW_SUBMODEL, b"sub-a"), (FLOW_SUBMODEL, b"sub-b")]],
                    variant=OmVariant.V2_TINY, header=HeaderFields(modeltype=FLOW_MODEL_TYPE))
    om = read_om(path)
    assert om.header.modeltype == FLOW_MODEL_TYPE and om.header.model_length == 0 and om.header.wide_table
    assert [p.type for p in om.submodels[0].partitions].count(PartitionType.FLOW_SUBMODEL) == 2
    assert om.fusion_map == json_map(model)


def test_flow_model_may_hold_more_than_eight_partitions(tmp_path):
    parts = [(MODEL_DEF, simple_model_def().SerializeToString())] + [(FLOW_SUBMODEL, b"s")] * 20
    path = write_om(tmp_path / "flow.om", [parts], header=HeaderFields(modeltype=FLOW_MODEL_TYPE))
    assert len(read_om(path).submodels[0].partitions) == 21


def test_om2_package_reads_debug_visual_json(tmp_path):
    doc = export_atc_json(opdiff.read_graph(write_om(tmp_path / "m.om", [[(MODEL_DEF, fused_model_def().SerializeToString())]])))
    path = write_om2(tmp_path / "m2.om", doc)
    fm = opdiff.read_graph(path)
    assert fm == json_map(fused_model_def())
    assert fm.source.endswith("!debug/visual.json")
    other = write_om2(tmp_path / "m3.om", doc, entry="debug/ge_visual_0001.json")
    assert opdiff.read_graph(other) == fm


@pytest.mark.parametrize("enumerate_values", [True, False])
def test_compressed_attributes_decode_to_the_plain_model(tmp_path, enumerate_values):
    plain = fused_model_def()
    compressed = fused_model_def()
    compress(compressed, enumerate_values=enumerate_values)
    keys = list(compressed.graph[0].op[1].attr)
    assert keys and all(k.startswith("\0") for k in keys)
    assert "_input_name_key" in compressed.graph[0].op[6].attr  # serializer keys stay plain
    names_value = compressed.graph[0].op[1].attr[keys[0]]
    assert names_value.list.val_type == (ge.AttrDef.ListValue.VT_LIST_INT if enumerate_values else ge.AttrDef.ListValue.VT_LIST_STRING)
    path = write_om(tmp_path / "c.om", [[(MODEL_DEF, compressed.SerializeToString())]])
    assert read_om(path).fusion_map == json_map(plain)


def test_dictionary_beyond_127_names_uses_two_digit_keys(tmp_path):
    plain = fused_model_def()
    for k in range(200):
        plain.graph[0].op[0].attr[f"pad_attr_{k:03d}"].i = k
    compressed = ge.ModelDef()
    compressed.CopyFrom(plain)
    compress(compressed)
    assert any(len(key) == 3 for key in compressed.graph[0].op[1].attr)
    path = write_om(tmp_path / "c.om", [[(MODEL_DEF, compressed.SerializeToString())]])
    assert read_om(path).fusion_map == json_map(plain)


def test_submodels_use_root_dictionary_after_their_own(tmp_path):
    root, sub_plain, sub_double = fused_model_def(), fused_model_def(), fused_model_def()
    expected = json_map(fused_model_def())
    dictionary = compress(root)
    compress(sub_plain, root=dictionary, own_dictionary=False)  # only the root's dictionary applies
    compress(sub_double, root=dictionary, double_encoded=True)  # own entries are keys into the root's
    assert "attr_name_enum" not in sub_plain.attr
    assert all(name.startswith(b"\0") for name in sub_double.attr["attr_name_enum"].list.s)
    path = write_om(tmp_path / "multi.om", [[(MODEL_DEF, m.SerializeToString())] for m in (root, sub_plain, sub_double)])
    om = read_om(path)
    assert om.fusion_map == expected
    assert om.submodel_fusion_map(1) == expected
    assert om.submodel_fusion_map(2) == expected


def test_unknown_partition_is_skipped_with_a_note(tmp_path):
    path = write_om(tmp_path / "m.om", [[(MODEL_DEF, simple_model_def().SerializeToString()), (99, b"future")]])
    fm = opdiff.read_graph(path)
    assert len(fm.ops) == 2
    assert fm.warnings == ("sub-model 0: skipped partition 1 of unknown type 99 (6 bytes)",)


def test_json_export_of_a_written_model_equals_its_fusion_map(tmp_path):
    path = write_om(tmp_path / "m.om", [[(MODEL_DEF, fused_model_def().SerializeToString())]])
    om = read_om(path)
    doc = json.loads(json.dumps(export_atc_json(om)))
    assert fusion_map_from_json(doc) == om.fusion_map
    # the JSON has the shape msaccucmp reads (docs/reference/reference-tool.md §3.2)
    conv = next(op for op in doc["graph"][0]["op"] if op["name"] == "conv_relu")
    assert conv["input"] == ["x:0"] and conv["id"] == 1
    assert {"key": "_datadump_original_op_names", "value": {"list": {"s": ["conv", "relu"], "val_type": "VT_LIST_STRING"}}} in conv["attr"]
    assert conv["output_desc"][0]["dtype"] == "DT_FLOAT16"


names = st.text(alphabet="abcXY_/.:0", min_size=1, max_size=6)


@st.composite
def fusion_maps(draw):
    count = draw(st.integers(1, 12))
    op_names = draw(st.lists(names, min_size=count, max_size=count, unique=True))
    ops = []
    for k, name in enumerate(op_names):
        provenance = draw(st.none() | st.lists(st.sampled_from(["", "a", "b", "c", "dd"]), max_size=3))
        descs = [
            OutputDesc(draw(st.sampled_from(["", "a", "zz"])), draw(st.integers(0, 3)), draw(st.sampled_from(["", "NCHW"])),
                       draw(st.none() | st.lists(st.integers(0, 9), max_size=3).map(tuple)), draw(st.sampled_from(["", "DT_INT8", "DT_FLOAT16"])))
            for _ in range(draw(st.integers(0, 2)))
        ]
        inputs = [f"{op_names[j]}:{draw(st.integers(-1, 2))}" for j in draw(st.lists(st.integers(0, count - 1), max_size=2))]
        ops.append(make_op(name, draw(st.sampled_from(["Data", "Conv2D", "Cast"])), id_=k, inputs=inputs,
                           original_names=provenance, output_descs=descs,
                           l1_fusion_sub_graph_no=draw(st.sampled_from(["", "", "7"])), is_multiop=draw(st.booleans())))
    split = draw(st.integers(0, len(ops)))
    return build_fusion_map("h", [("g0", ops[:split]), ("g1", ops[split:])])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fm=fusion_maps(), compressed=st.booleans(), variant=st.sampled_from(OmVariant))
def test_any_fusion_map_survives_om_and_json(tmp_path, fm, compressed, variant):
    model = model_def_from_fusion_map(fm)
    if compressed:
        compress(model)
    path = write_om(tmp_path / "h.om", [[(MODEL_DEF, model.SerializeToString())]], variant=variant)
    from_om = opdiff.read_graph(path)
    assert from_om == fm
    assert fusion_map_from_json(json.loads(json.dumps(export_atc_json(from_om)))) == fm


def test_kind_is_told_by_content_not_extension(tmp_path):
    from opdiff.graph.read import GraphKind, detect_graph_kind

    om = write_om(tmp_path / "model.json", [[(MODEL_DEF, simple_model_def().SerializeToString())]])
    assert detect_graph_kind(om) is GraphKind.OM
    rule = tmp_path / "rule.om"
    rule.write_bytes(b"\xef\xbb\xbf" + json.dumps(export_atc_json(opdiff.read_graph(om))).encode())
    assert detect_graph_kind(rule) is GraphKind.ATC_JSON
    assert opdiff.read_graph(rule) == opdiff.read_graph(om)
    package = write_om2(tmp_path / "pkg.json", export_atc_json(opdiff.read_graph(om)))
    assert detect_graph_kind(package) is GraphKind.OM2

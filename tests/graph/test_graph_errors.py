"""Bad input: every error names the file and the problem (GraphFormatError, a ValueError)."""

import json
import struct
import zipfile

import pytest

import opdiff
from opdiff.graph import GraphFormatError
from opdiff.graph.atc_json import read_atc_json
from opdiff.graph.model_def_builder import model_def, op_def, simple_model_def
from opdiff.graph.om.reader import read_om
from opdiff.graph.om.writer import (
    FLOW_SUBMODEL,
    MODEL_DEF,
    WEIGHTS_DATA,
    HeaderFields,
    OmVariant,
    om_bytes,
    write_om,
    write_om2,
)
from opdiff.graph.proto import ge_ir_pb2 as ge

GOOD = simple_model_def().SerializeToString()


def write(tmp_path, data, name="bad.om"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def expect_error(path, fragment):
    with pytest.raises(GraphFormatError) as caught:
        opdiff.read_graph(path)
    assert str(path) in str(caught.value) and fragment in str(caught.value)
    assert isinstance(caught.value, ValueError)
    return caught.value


def test_wrong_magic(tmp_path):
    data = om_bytes([[(MODEL_DEF, GOOD)]], header=HeaderFields(magic=0x12345678))
    path = write(tmp_path, data)
    with pytest.raises(GraphFormatError, match="wrong magic 0x12345678"):
        read_om(path)
    expect_error(path, "neither an .om model")  # read_graph does not even take it for an .om


def test_encrypted_model(tmp_path):
    expect_error(write(tmp_path, om_bytes([[(MODEL_DEF, GOOD)]], header=HeaderFields(is_encrypt=1))), "encrypted model")


def test_truncated_header(tmp_path):
    expect_error(write(tmp_path, om_bytes([[(MODEL_DEF, GOOD)]])[:100]), "too short for an .om header")


def test_length_past_the_end(tmp_path):
    data = om_bytes([[(MODEL_DEF, GOOD)]])
    expect_error(write(tmp_path, data[:-5]), "bytes follow it, but the file has")


def test_trailing_bytes(tmp_path):
    expect_error(write(tmp_path, om_bytes([[(MODEL_DEF, GOOD)]]) + b"xx"), "2 trailing bytes")


def test_partition_past_the_end(tmp_path):
    data = bytearray(om_bytes([[(MODEL_DEF, GOOD), (WEIGHTS_DATA, bytes(8))]]))
    struct.pack_into("<Q", data, 256 + 8 + 24 + 16, 10_000)  # size of the second entry
    expect_error(write(tmp_path, bytes(data)), "partition 1 (type 1, 10000 bytes) runs past the end")


def test_legacy_partition_past_the_end(tmp_path):
    data = bytearray(om_bytes([[(MODEL_DEF, GOOD)]], variant=OmVariant.V2_TINY))
    struct.pack_into("<I", data, 256 + 4 + 8, len(GOOD) + 1)
    expect_error(write(tmp_path, bytes(data)), "partition 0 (type 0")


def test_partition_table_past_the_end(tmp_path):
    flow = HeaderFields(modeltype=3)  # flow models may have up to 4096 partitions
    data = bytearray(om_bytes([[(MODEL_DEF, GOOD)]], header=flow))
    struct.pack_into("<I", data, 256, 4000)  # claims 4000 entries
    expect_error(write(tmp_path, bytes(data)), "partition table of 4000 entries runs past the end")
    struct.pack_into("<I", data, 256, 5000)
    expect_error(write(tmp_path, bytes(data)), "partition count 5000 outside 1..4096")


def test_partition_count_out_of_range(tmp_path):
    expect_error(write(tmp_path, om_bytes([[(MODEL_DEF, GOOD)] + [(FLOW_SUBMODEL, b"")] * 9])), "partition count 10 outside 1..8")


def test_more_submodels_announced_than_present(tmp_path):
    expect_error(write(tmp_path, om_bytes([[(MODEL_DEF, GOOD)]], header=HeaderFields(model_num=2))),
                 "sub-model 1 of 2 (model_num): partition table runs past the end")


def test_broken_protobuf(tmp_path):
    expect_error(write(tmp_path, om_bytes([[(MODEL_DEF, b"\x0a\xff\xff\xff\x0f garbage")]])), "MODEL_DEF of sub-model 0 is not a valid ge.proto.ModelDef")


def test_no_model_def(tmp_path):
    expect_error(write(tmp_path, om_bytes([[(WEIGHTS_DATA, b"w")]])), "no MODEL_DEF partition")


def test_compressed_key_without_dictionary(tmp_path):
    model = simple_model_def()
    model.attr["om_compress_version"].i = 1
    model.graph[0].op[0].attr["\0\x05"].i = 1
    expect_error(write(tmp_path, om_bytes([[(MODEL_DEF, model.SerializeToString())]])), "has no attr_name_enum")


def test_compressed_key_past_the_dictionary(tmp_path):
    model = simple_model_def()
    model.attr["om_compress_version"].i = 1
    model.attr["attr_name_enum"].list.s.append(b"_datadump_original_op_names")
    model.graph[0].op[0].attr["\0\x09"].i = 1
    expect_error(write(tmp_path, om_bytes([[(MODEL_DEF, model.SerializeToString())]])), "points past the name dictionary")


def test_enumerated_value_past_the_value_dictionary(tmp_path):
    model = model_def("m", [("g", [op_def("a", "Relu")])])
    model.attr["om_compress_version"].i = 1
    model.attr["attr_name_enum"].list.s.append(b"_datadump_original_op_names")
    model.attr["attrs_use_string_value"].list.b.append(True)
    model.graph[0].op[0].attr["\0\x01"].list.i.append(3)
    expect_error(write(tmp_path, om_bytes([[(MODEL_DEF, model.SerializeToString())]])), "points past attr_value_enum")


def test_empty_and_unknown_files(tmp_path):
    expect_error(write(tmp_path, b"", "empty.om"), "empty file")
    expect_error(write(tmp_path, b"\x7fELF....", "x.om"), "neither an .om model")
    expect_error(tmp_path / "missing.om", "cannot open")


def test_broken_om2_packages(tmp_path):
    expect_error(write(tmp_path, b"PK\x03\x04 not really a zip", "z.om"), "broken OM2 (zip) package")
    path = tmp_path / "nojson.om"
    with zipfile.ZipFile(path, "w") as package:
        package.writestr("model/model.bin", b"")
    expect_error(path, "OM2 package without debug/visual.json")
    path = tmp_path / "badjson.om"
    with zipfile.ZipFile(path, "w") as package:
        package.writestr("debug/visual.json", b"{nope")
    expect_error(path, "debug/visual.json is not valid JSON")
    expect_error(write_om2(tmp_path / "shape.om", {"graph": 3}), "missing 'graph' array")


@pytest.mark.parametrize(
    ("doc", "fragment"),
    [
        ("{", "not valid JSON"),
        ("[1]", "top level is not a JSON object"),
        ('{"graph": {}}', "missing 'graph' array"),
        ('{"graph": [{"name": "g"}]}', "graph[0] has no 'op' array"),
        ('{"graph": [{"name": 1, "op": []}]}', "graph[0].name is not a string"),
        ('{"graph": [{"op": [3]}]}', "graph[0].op[0] is not an object"),
        ('{"graph": [{"op": [{"name": "a"}]}]}', "graph[0].op[0] needs string 'name' and 'type'"),
        ('{"graph": [{"op": [{"name": "a", "type": "T", "id": "one"}]}]}', "op 'a': 'id' is not an integer"),
        ('{"graph": [{"op": [{"name": "a", "type": "T", "input": "x:0"}]}]}', "op 'a': 'input' is not an array of strings"),
        ('{"graph": [{"op": [{"name": "a", "type": "T", "attr": {}}]}]}', "op 'a': 'attr' is not an array"),
        ('{"graph": [{"op": [{"name": "a", "type": "T", "attr": [{"value": {}}]}]}]}', "attr entry without a string 'key'"),
        ('{"graph": [{"op": [{"name": "a", "type": "T", "attr": [{"key": "k", "value": 3}]}]}]}', "attr 'k' value is not an object"),
        ('{"graph": [{"op": [{"name": "a", "type": "T", "output_desc": {}}]}]}', "'output_desc' is not an array"),
        ('{"graph": [{"op": [{"name": "a", "type": "T", "output_desc": [1]}]}]}', "output_desc[0] is not an object"),
        ('{"graph": [{"op": [{"name": "a", "type": "T", "attr": [{"key": "_datadump_original_op_names", "value": {"list": {"s": "x"}}}]}]}]}',
         "'list.s' is not an array"),
        ('{"graph": [{"op": [{"name": "a", "type": "T", "attr": [{"key": "_L1_fusion_sub_graph_no", "value": {"s": 5}}]}]}]}',
         "string attribute holds 5"),
    ],
)
def test_bad_atc_json(tmp_path, doc, fragment):
    path = tmp_path / "rule.json"
    path.write_text(doc)
    with pytest.raises(GraphFormatError) as caught:
        read_atc_json(path)
    assert str(caught.value).startswith(f"{path}: ") and fragment in str(caught.value)


def test_json_with_invalid_utf8(tmp_path):
    expect_error(write(tmp_path, b'{"graph": [{"op": [{"name": "\xff", "type": "T"}]}]}', "r.json"), "JSON")


def test_bad_input_reference_in_om(tmp_path):
    model = model_def("m", [("g", [op_def("a", "Relu", inputs=["nocolon"])])])
    expect_error(write(tmp_path, om_bytes([[(MODEL_DEF, model.SerializeToString())]])), "graph 'g' op 'a': input 'nocolon'")


def test_valid_files_still_read(tmp_path):
    # guards the helpers above: the unmodified inputs are accepted
    assert len(opdiff.read_graph(write_om(tmp_path / "ok.om", [[(MODEL_DEF, GOOD)]])).ops) == 2
    path = tmp_path / "ok.json"
    path.write_text(json.dumps({"graph": [{"op": [{"name": "a", "type": "T"}]}]}))
    assert opdiff.read_graph(path).op("a").type == "T"
    assert ge.ModelDef.FromString(GOOD).graph[0].name == "ge_default_1"

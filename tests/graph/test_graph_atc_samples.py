"""The two real atc JSON files (tests/data/atc-json, MulanPSL2, see README there) read with sanity checks.

Expected counts were worked out from the raw files by hand (see each comment) and cross-checked here
with a counting pass over the raw JSON that shares no code with the reader.
"""

import json
from collections import Counter

import opdiff
from opdiff.graph import InputRef, OutputDesc, Relation, export_atc_json
from opdiff.graph.atc_json import fusion_map_from_json
from tests.support import paths

DATA = paths.DATA / "atc-json"
ANALYZE = DATA / "msit_analyze_test.om.json"
QUICKCMP = DATA / "msit_msquickcmp_model.json"


def raw_name_lists(path):
    """Per op: None (attribute absent) or the raw list of original names."""
    ops = json.loads(path.read_text())["graph"][0]["op"]
    lists = []
    for op in ops:
        attrs = {a["key"]: a["value"] for a in op.get("attr", [])}
        names = attrs.get("_datadump_original_op_names")
        lists.append((op["name"], None if names is None else names["list"].get("s", [])))
    return lists


def test_quickcmp_sample_groups():
    fm = opdiff.read_graph(QUICKCMP)
    # 19 ops: 10 without the names attribute (own name), 5 trans Cast/NetOutput with an empty list
    # (own name as key), Concat_1211 and Slice_1218 with their own single name, and two ops
    # PartitionedCall_Gather_1221_* both named Gather_1221 -> 17 single-op groups + 1 group of two.
    assert len(fm.ops) == 19
    assert len(fm.groups) == 18
    assert fm.relation_counts[Relation.ONE_TO_ONE] == 17
    assert fm.relation_counts[Relation.ONE_TO_MULTI] == 1
    gather = fm.group_of("PartitionedCall_Gather_1221_gatherv2_3")
    assert gather.op_names == ("PartitionedCall_Gather_1221_const_data_2", "PartitionedCall_Gather_1221_gatherv2_3")
    assert [op.name for op in fm.data_ops] == ["boxes_all", "scores_all"]
    assert fm.output_refs == (InputRef("trans_Cast_6", 0), InputRef("trans_Cast_7", 0), InputRef("Cast_1206", 0))
    # trans_Cast_7's output is the golden output 0 of Gather_1221, in ND
    assert fm.op("trans_Cast_7").output_descs == (OutputDesc("Gather_1221", 0, "ND", (100,), "DT_FLOAT"),)
    # BatchMultiClassNMS_1203 has no names attribute: its 4 outputs map to itself, by position
    nms = fm.op("BatchMultiClassNMS_1203").output_descs
    assert [(d.origin_name, d.origin_output_index) for d in nms] == [("BatchMultiClassNMS_1203", k) for k in range(4)]
    # the NetOutput has an empty names list and no output_desc
    assert fm.op("Node_Output").original_names == ("",) and fm.op("Node_Output").output_descs == ()
    # Concat_1211 is a rename node: its desc gets its one original name
    assert fm.op("Concat_1211").output_descs[0].origin_name == "Concat_1211"
    # ids: the first Data op has none (0 omitted by atc), the rest count up
    assert [op.id for op in fm.ops] == list(range(19))
    order = fm.execution_order
    assert order.index("BatchMultiClassNMS_1203") > order.index("BatchMultiClassNMS_1203_Input1_TransposeBefore")


def test_analyze_sample_groups():
    fm = opdiff.read_graph(ANALYZE)
    # 132 ops: 75 with an empty names list and 17 without the attribute (each keyed by its own name),
    # 9 with one name (three of them RandomNormalLike_327), 31 with two or more names, all distinct.
    # -> 75 + 17 + 9 - 2 = 99 single-name groups (98 of one op, 1 of three) + 31 MultiToOne = 130.
    assert len(fm.ops) == 132
    assert len(fm.groups) == 130
    assert fm.relation_counts == {
        Relation.ONE_TO_ONE: 98, Relation.MULTI_TO_ONE: 31, Relation.ONE_TO_MULTI: 1,
        Relation.MULTI_TO_MULTI: 0, Relation.L1_FUSION: 0,
    }
    lists = raw_name_lists(ANALYZE)
    assert sum(1 for _, names in lists if names is not None and len(names) >= 2) == 31
    keys = Counter(names[0] if names and len(names) == 1 else name for name, names in lists if not names or len(names) == 1)
    assert [key for key, count in keys.items() if count > 1] == ["RandomNormalLike_327"]
    assert len(fm.group_of("PartitionedCall_RandomNormalLike_327_add_172").op_names) == 3
    assert [op.name for op in fm.data_ops] == ["feats"]
    assert fm.output_refs == (InputRef("trans_Cast_95", 0),)
    assert len(fm.execution_order) == 132 and set(fm.execution_order) == {op.name for op in fm.ops}


def test_samples_survive_export_and_read_back():
    for path in (ANALYZE, QUICKCMP):
        fm = opdiff.read_graph(path)
        assert fusion_map_from_json(json.loads(json.dumps(export_atc_json(fm)))) == fm


def test_licence_and_readme_travel_with_the_samples():
    assert "Mulan" in (DATA / "LICENSE-MulanPSL2.txt").read_text(encoding="utf-8")
    assert "6e3e88732929d17f0b22344ade92a245bb601d43" in (DATA / "README.md").read_text()

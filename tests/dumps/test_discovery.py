from pathlib import Path

import pytest

from opdiff.conventions.dump_names import device_file_name, escape_op_name, golden_file_name, parse_golden_name, parse_npu_dump_name, slice_key
from opdiff.dumps.discovery import FileKind, choose_leaf, find_leaves, index_folder


def touch(folder: Path, *names: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(b"")


def test_five_and_nine_field_names():
    five = parse_npu_dump_name("Conv2D.conv1_Conv2D.5.1.1700000000000001")
    assert (five.op_type, five.key, five.task_id, five.stream_id, five.timestamp) == (
        "Conv2D", "conv1_Conv2D", 5, 1, 1700000000000001,
    )
    nine = parse_npu_dump_name("MatMul.mm.12.3.1700000000000009.4.7.2.0")
    assert (nine.task_type, nine.context_id, nine.thread_id, nine.device_id) == (4, 7, 2, 0)
    assert nine.is_ffts_auto
    no_stream = parse_npu_dump_name("Relu.r.5.1700000000000001")
    assert no_stream.stream_id is None and no_stream.task_id == 5


@pytest.mark.parametrize(
    "name",
    ["conv1.0.1700000000000001.npy", "Conv2D.conv 1.5.1.170", "Relu.r.5.1.170.9.1.1.1", "notes.txt", "a.b"],
)
def test_names_that_are_not_npu_dumps(name):
    assert parse_npu_dump_name(name) is None


def test_golden_names():
    g = parse_golden_name("conv1_Relu.0.1700000000000001.npy")
    assert g.key == "conv1_Relu.0" and g.output_index == 0
    assert parse_golden_name("input_x.1.17.npy").key == "input_x.1"
    assert parse_golden_name("conv1_Relu.0.1700000000000001.bin") is None


def test_slice_names():
    assert slice_key("conv_lxslice2", with_fusion_rule=False) == "conv"
    assert slice_key("sgt_graph_3_conv", with_fusion_rule=False) == "conv"
    assert slice_key("a_lxslice1_b", with_fusion_rule=False) is None  # an inner _lxslice stays: ignored
    assert slice_key("a_lxslice1_b", with_fusion_rule=True) == "a_b"


def test_escape_op_name():
    assert escape_op_name("layer1/conv.0 a\\b") == "layer1_conv_0_a_b"


def test_index_keeps_every_version_newest_last(tmp_path):
    touch(tmp_path, "Conv2D.c.1.1.1700000000000002", "Conv2D.c.2.1.1700000000000001", "Relu.r.3.1.1700000000000003",
          "mapping.csv", "readme.txt")
    index = index_folder(tmp_path)
    assert index.kind is FileKind.NPU
    assert [n.timestamp for n in index.files["c"]] == [1700000000000001, 1700000000000002]
    assert index.newest("c").task_id == 1
    assert index.keys_in_time_order() == ["c", "r"]
    assert [p.name for p, _ in index.skipped] == ["readme.txt"]


def test_ffts_slices_sort_by_thread(tmp_path):
    touch(tmp_path, "MatMul.mm.1.1.1700000000000001.4.0.1.0", "MatMul.mm.1.1.1700000000000001.4.0.0.0")
    assert [n.thread_id for n in index_folder(tmp_path).files["mm"]] == [0, 1]


def test_hashed_names_resolve_through_mapping_csv(tmp_path):
    touch(tmp_path, "123456", "987.npy")
    (tmp_path / "mapping.csv").write_text("123456,Conv2D.a_very_long_name.1.1.1700000000000001\n")
    index = index_folder(tmp_path)
    assert list(index.files) == ["a_very_long_name"]
    assert Path(index.files["a_very_long_name"][0].path).name == "123456"
    assert [p.name for p, _ in index.skipped] == ["987.npy"]


def test_golden_folder_and_mixed_folder(tmp_path):
    touch(tmp_path / "g", "x.0.1700000000000001.npy", "x.1.1700000000000001.npy")
    index = index_folder(tmp_path / "g")
    assert index.kind is FileKind.GOLDEN and sorted(index.files) == ["x.0", "x.1"]
    touch(tmp_path / "mixed", "x.0.1700000000000001.npy", "Relu.r.3.1.1700000000000003")
    with pytest.raises(ValueError, match="both NPU dump files and golden"):
        index_folder(tmp_path / "mixed")


def test_quant_detection(tmp_path):
    touch(tmp_path, "AscendQuant.conv1_quant_layer.1.1.1700000000000001")
    assert index_folder(tmp_path).is_quant


def test_device_layout_leaves(tmp_path):
    model = tmp_path / "20261129120000" / "0" / "resnet" / "1"
    touch(model / "0", "Relu.r.3.1.1700000000000003")
    touch(model / "1", "Relu.r.3.1.1700000000000004")
    leaves = find_leaves(tmp_path)
    assert [leaf.step for leaf in leaves] == [0, 1]
    assert choose_leaf(tmp_path, leaves).folder == model / "1"
    assert choose_leaf(tmp_path, leaves, step=0).folder == model / "0"
    with pytest.raises(ValueError, match="no step 7"):
        choose_leaf(tmp_path, leaves, step=7)
    flat = tmp_path / "golden"  # a side without steps (golden .npy files): --step does not apply to it
    touch(flat, "r.0.1700000000000003.npy")
    assert choose_leaf(flat, find_leaves(flat), step=0).folder == flat
    touch(tmp_path / "20261129120000" / "0" / "bert" / "1" / "0", "Relu.r.3.1.1700000000000003")
    with pytest.raises(ValueError, match="several models"):
        choose_leaf(tmp_path, find_leaves(tmp_path))


def test_no_dumps_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no dump files found"):
        choose_leaf(tmp_path, find_leaves(tmp_path))


def test_composed_names_parse_back_with_op_type_and_name_escaped():
    parsed = parse_npu_dump_name(device_file_name("Conv.2D", "res2/conv 0", 3, 1, 1700000000000001))
    assert (parsed.op_type, parsed.op_name, parsed.task_id, parsed.stream_id) == ("Conv_2D", "res2_conv_0", 3, 1)
    golden = parse_golden_name(golden_file_name("a/b\\c", 2, 1700000000000001))
    assert (golden.op_name, golden.output_index, golden.timestamp) == ("a_b_c", 2, 1700000000000001)

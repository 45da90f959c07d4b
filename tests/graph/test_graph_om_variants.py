"""The three .om header variants of real ATC output (docs/reference/device-files.md §1), each written by the project's
writer: its raw bytes against the facts (without the reader), the reader, `opdiff graph`, the
refusals, damaged headers and tables, and the fuzz seeds."""

import os
import re
import struct
import subprocess
import sys

import pytest

from opdiff.graph import GraphFormatError
from opdiff.graph.model_def_builder import model_def, op_def
from opdiff.graph.om.partitions import PartitionType
from opdiff.graph.om.reader import read_om
from opdiff.graph.om.writer import (
    MODEL_DEF,
    HeaderFields,
    OmVariant,
    atc_partitions,
    om_bytes,
    write_om,
    write_om2,
)
from opdiff.graph.read import read_graph_file
from tests.support import paths

VARIANTS = list(OmVariant)
CMDLINE = "/usr/local/Ascend/ascend-toolkit/6.0.RC1/aarch64-linux/bin/atc.bin --framework=5 --model=net.onnx --output=net --soc_version=Ascend310"


def many_op_model(count=30, **attrs):
    """A chain of `count` ops, every third one fused from two framework ops, with model attributes."""
    ops = [op_def("input_0", "Data")]
    for k in range(1, count):
        names = [f"fw/conv{k}", f"fw/relu{k}"] if k % 3 == 0 else None
        ops.append(op_def(f"npu_op_{k:02d}", f"Type{k % 4}", id_=k, inputs=[ops[-1].name + ":0"], original_names=names))
    model = model_def("chain", [("chain_graph", ops)])
    for key, value in attrs.items():
        model.attr[key].s = value.encode()
    return model


def variant_bytes(variant, model=None):
    payload = (model or many_op_model()).SerializeToString()
    return om_bytes([atc_partitions(payload, variant)], variant=variant), payload


def run_graph(*args):
    env = dict(os.environ, COLUMNS="250")  # one line per row: long op names and command lines stay whole
    return subprocess.run([sys.executable, "-m", "opdiff", "graph", *map(str, args)], capture_output=True, text=True, env=env)


# --- the writer's bytes against docs/reference/device-files.md §1, read with struct alone ---------------------------

def tiny_table(data):
    (count,) = struct.unpack_from("<I", data, 256)
    entries = [struct.unpack_from("<III", data, 260 + 12 * k) for k in range(count)]
    return 260 + 12 * count, entries


def wide_table(data):
    count, pad = struct.unpack_from("<II", data, 256)
    assert pad == 0
    entries = []
    for k in range(count):
        kind, entry_pad, offset, size = struct.unpack_from("<IIQQ", data, 264 + 24 * k)
        assert entry_pad == 0
        entries.append((kind, offset, size))
    return 264 + 24 * count, entries


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_writer_bytes_match_real_files(variant):
    data, payload = variant_bytes(variant)
    assert data[:4] == b"IMOD" and struct.unpack_from("<I", data, 4)[0] == 256
    length, model_length = struct.unpack_from("<I", data, 76)[0], struct.unpack_from("<Q", data, 184)[0]
    if variant is OmVariant.V1_0:
        assert struct.unpack_from("<I", data, 8)[0] == 0x10000000
        assert data[156:160] == b"1.11"  # platform_version starts where a 2.0 header has model_num
        assert struct.unpack_from("<I", data, 156)[0] == 825_306_673  # what reading it as model_num gives
        assert data[156:176].rstrip(b"\0") == b"1.11.z.0"
        assert (length, model_length) == (len(data) - 256, 0)
    else:
        assert struct.unpack_from("<I", data, 8)[0] == 0x20000000
        assert struct.unpack_from("<I", data, 156)[0] == 1  # model_num
        assert data[160:180].rstrip(b"\0") == b"1.11.z.0"
        expected = (len(data) - 256, 0) if variant is OmVariant.V2_TINY else (0, len(data) - 256)
        assert (length, model_length) == expected
    table_end, entries = wide_table(data) if variant is OmVariant.V2_WIDE else tiny_table(data)
    kinds = [kind for kind, _, _ in entries]
    assert kinds == ([0, 1, 3, 2] if variant is not OmVariant.V2_WIDE else [8, 0, 1, 3, 2])
    # offsets count from the end of the table, payloads back to back, the last ending at the file's end
    running = 0
    for kind, offset, size in entries:
        assert offset == running
        if kind == MODEL_DEF:
            assert data[table_end + offset : table_end + offset + size] == payload
        running += size
    assert table_end + running == len(data)


def test_a_one_zero_file_holds_one_model():
    with pytest.raises(ValueError, match="exactly one model"):
        om_bytes([[(MODEL_DEF, b"")], [(MODEL_DEF, b"")]], variant=OmVariant.V1_0)


# --- the reader ------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_reader_reads_each_variant(tmp_path, variant):
    data, payload = variant_bytes(variant, many_op_model(atc_cmdline=CMDLINE))
    path = tmp_path / "net.om"
    path.write_bytes(data)
    om = read_om(path)
    header = om.header
    assert header.version_name == ("1.0" if variant is OmVariant.V1_0 else "2.0")
    assert header.model_num == (None if variant is OmVariant.V1_0 else 1)
    assert header.platform_version == "1.11.z.0" and header.wide_table is (variant is OmVariant.V2_WIDE)
    assert len(om.submodels) == 1
    partitions = om.submodels[0].partitions
    expected = [PartitionType.MODEL_DEF, PartitionType.WEIGHTS_DATA, PartitionType.TBE_KERNELS, PartitionType.TASK_INFO]
    if variant is OmVariant.V2_WIDE:
        expected.insert(0, PartitionType.MODEL_INOUT_INFO)
    assert [p.type for p in partitions] == expected
    model_part = om.submodels[0].find(PartitionType.MODEL_DEF)
    assert data[model_part.offset : model_part.offset + model_part.size] == payload
    assert [op.name for op in om.fusion_map.ops] == ["input_0"] + [f"npu_op_{k:02d}" for k in range(1, 30)]
    assert om.fusion_map.group_of("npu_op_03").original_names == ("fw/conv3", "fw/relu3")
    assert (om.facts.atc_cmdline, om.facts.soc_version, om.facts.soc_from_cmdline) == (CMDLINE, "Ascend310", True)


def test_soc_version_attribute_wins_over_the_command_line(tmp_path):
    model = many_op_model(atc_cmdline=CMDLINE, soc_version="Ascend310P3", atc_version="1.83.10.1.252")
    path = write_om(tmp_path / "m.om", [atc_partitions(model.SerializeToString())])
    facts = read_om(path).facts
    assert (facts.soc_version, facts.soc_from_cmdline, facts.atc_version) == ("Ascend310P3", False, "1.83.10.1.252")
    assert read_om(write_om(tmp_path / "bare.om", [atc_partitions(many_op_model().SerializeToString())])).facts.atc_cmdline is None


# --- opdiff graph ----------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_graph_command_lists_every_op_and_the_header_facts(tmp_path, variant):
    data, payload = variant_bytes(variant, many_op_model(atc_cmdline=CMDLINE))
    path = tmp_path / f"{variant.name}.om"
    path.write_bytes(data)
    result = run_graph(path, "--limit", "0")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for k in range(1, 30):
        assert f"npu_op_{k:02d}" in out
    assert "ops (30)" in out and "fw/conv27, fw/relu27" in out
    version = "1.0 (0x10000000), no model_num field" if variant is OmVariant.V1_0 else "2.0 (0x20000000), model_num 1"
    assert version in out
    assert "platform version" in out and "1.11.z.0" in out
    assert CMDLINE in out and "Ascend310 (from the ATC command line)" in out
    assert "MODEL_DEF (0)" in out and f"{len(payload):,}" in out and "TASK_INFO (2)" in out
    assert f"partitions ({5 if variant is OmVariant.V2_WIDE else 4})" in out


def test_graph_command_says_what_is_not_recorded_and_where_the_list_is_cut(tmp_path):
    path = write_om(tmp_path / "m.om", [atc_partitions(many_op_model().SerializeToString(), OmVariant.V1_0)], variant=OmVariant.V1_0)
    result = run_graph(path, "--limit", "5")
    assert result.returncode == 0, result.stderr
    assert "ATC command line" in result.stdout and "not recorded" in result.stdout
    assert "npu_op_04" in result.stdout and "npu_op_05" not in result.stdout
    assert "the first 5 of 30 ops; --limit 0 lists all" in result.stdout


@pytest.mark.parametrize(("sample", "soc", "toolkit"), [("msit_msquickcmp_model.json", "Ascend310", "5.1.RC2"),
                                                   ("msit_analyze_test.om.json", "Ascend310", "6.0.RC1")])
def test_graph_command_shows_the_facts_of_a_real_atc_json(sample, soc, toolkit):
    rule = paths.DATA / "atc-json" / sample
    graph = read_graph_file(rule)
    assert graph.om is None and graph.facts.soc_version == soc and not graph.facts.soc_from_cmdline
    assert f"ascend-toolkit/{toolkit}/" in graph.facts.atc_cmdline and graph.facts.framework_type == "Onnx"
    result = run_graph(rule)
    assert result.returncode == 0, result.stderr
    assert graph.facts.atc_cmdline in result.stdout and re.search(rf"soc_version\s+│ {soc}\s", result.stdout)


def test_graph_command_shows_the_facts_of_an_om2_package(tmp_path):
    from opdiff.graph import export_atc_json

    om_path = write_om(tmp_path / "m.om", [atc_partitions(many_op_model().SerializeToString())])
    doc = export_atc_json(read_om(om_path))
    doc["attr"] = [{"key": "atc_cmdline", "value": {"s": CMDLINE}}, {"key": "stream_num", "value": {"i": 1}}]
    package = write_om2(tmp_path / "m2.om", doc, model_binary=om_path.read_bytes())
    result = run_graph(package, "--limit", "0")
    assert result.returncode == 0, result.stderr
    assert "OM2 package" in result.stdout and CMDLINE in result.stdout and "Ascend310 (from the ATC command line)" in result.stdout
    assert "npu_op_29" in result.stdout and "partitions (" not in result.stdout


# --- refusals on every variant: exit 2, one message naming the file --------------------------------

def assert_refused(path, fragment):
    result = run_graph(path)
    assert result.returncode == 2, result.stdout
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert f"opdiff graph: error: {path}: " in result.stderr and fragment in result.stderr, result.stderr


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_encrypted_model_is_refused(tmp_path, variant):
    payload = many_op_model().SerializeToString()
    path = write_om(tmp_path / "secret.om", [atc_partitions(payload, variant)], variant=variant, header=HeaderFields(is_encrypt=1))
    assert_refused(path, "encrypted model (is_encrypt=1)")


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_om2_package_without_its_debug_graph_is_refused(tmp_path, variant):
    inner, _ = variant_bytes(variant)
    path = write_om2(tmp_path / "package.om", None, model_binary=inner)
    assert_refused(path, "OM2 package without debug/visual.json")
    with pytest.raises(GraphFormatError, match="an OM2 package"):
        read_om(path)  # the .om reader itself says what the file is


# --- damaged headers and tables --------------------------------------------------------------------

def read_error(tmp_path, data):
    path = tmp_path / "damaged.om"
    path.write_bytes(bytes(data))
    with pytest.raises(GraphFormatError) as caught:
        read_om(path)
    assert str(caught.value).startswith(f"{path}: ")
    return str(caught.value)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_truncated_file_and_truncated_table(tmp_path, variant):
    data, _ = variant_bytes(variant)
    assert "(truncated?)" in read_error(tmp_path, data[:270])  # cut inside the partition table
    cut = bytearray(data[:270])
    if variant is OmVariant.V2_WIDE:
        struct.pack_into("<Q", cut, 184, len(cut) - 256)  # a header that agrees with the cut file
    else:
        struct.pack_into("<I", cut, 76, len(cut) - 256)
    assert "partition table of" in read_error(tmp_path, cut) and "runs past the end of the file" in read_error(tmp_path, cut)


@pytest.mark.parametrize("variant", [OmVariant.V1_0, OmVariant.V2_TINY], ids=lambda v: v.name)
def test_length_zero_is_read_by_the_partition_table(tmp_path, variant):
    data, _ = variant_bytes(variant)
    unset = bytearray(data)
    struct.pack_into("<I", unset, 76, 0)
    path = tmp_path / "no_length.om"
    path.write_bytes(bytes(unset))
    om = read_om(path)
    assert len(om.fusion_map.ops) == 30
    assert any("announces no data length" in note for note in om.warnings)
    assert "trailing bytes" in read_error(tmp_path, unset + b"\0" * 3)  # the table must still cover the file


def test_length_is_ignored_when_model_length_is_set(tmp_path):
    data = bytearray(variant_bytes(OmVariant.V2_WIDE)[0])
    struct.pack_into("<I", data, 76, 12345)  # GE takes model_length when it is not 0
    path = tmp_path / "both.om"
    path.write_bytes(bytes(data))
    assert len(read_om(path).fusion_map.ops) == 30


def test_reserved_bytes_of_a_one_zero_header_are_not_model_length(tmp_path):
    data = bytearray(variant_bytes(OmVariant.V1_0)[0])
    data[184:192] = b"\xff" * 8  # reserved in the 1.0 struct, which predates model_length
    path = tmp_path / "old.om"
    path.write_bytes(bytes(data))
    om = read_om(path)
    assert om.header.model_length == 0 and not om.header.wide_table and len(om.fusion_map.ops) == 30


def test_one_zero_platform_version_under_a_two_zero_version_names_model_num(tmp_path):
    """The issue's failure, kept as an error: a 1.0 layout labelled 0x20000000 reads '1.11' as model_num."""
    data = bytearray(variant_bytes(OmVariant.V1_0)[0])
    struct.pack_into("<I", data, 8, 0x20000000)
    message = read_error(tmp_path, data)
    assert "sub-model 1 of 825306673 (model_num): partition table runs past the end of the file" in message


# --- fuzz seeds ------------------------------------------------------------------------------------

def test_fuzz_seeds_cover_each_variant(tmp_path):
    sys.path.insert(0, str(paths.ROOT / "bench" / "fuzz"))
    import targets

    seeds = [seed for seed in targets.om_seeds(tmp_path) if seed[:4] == b"IMOD"]
    versions = {struct.unpack_from("<I", seed, 8)[0] for seed in seeds}
    assert versions == {0x10000000, 0x20000000}
    two_zero = [seed for seed in seeds if struct.unpack_from("<I", seed, 8)[0] == 0x20000000]
    assert any(struct.unpack_from("<Q", seed, 184)[0] == 0 for seed in two_zero)  # tiny table
    assert any(struct.unpack_from("<Q", seed, 184)[0] == len(seed) - 256 for seed in two_zero)  # wide table
    assert any(seed[156:160] == b"1.11" for seed in seeds)

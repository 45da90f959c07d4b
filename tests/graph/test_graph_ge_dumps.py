"""GE graph dumps (ge_proto_*.txt, ge_onnx_*.pbtxt) as fusion rules: read as the .om holding the same
graph reads, listed by `opdiff graph`, compared as through the atc JSON, and refused with the line."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import opdiff
from opdiff.graph import GraphFormatError, write_atc_json
from opdiff.graph.ge.text_scan import STRING_LIMIT, TextScanner
from opdiff.graph.ge.writer import STAGES, ge_onnx_text, ge_proto_text, write_ge_graph_dumps
from opdiff.graph.model_def_builder import model_def_from_fusion_map
from opdiff.graph.om.writer import MODEL_DEF, write_om
from opdiff.graph.read import GraphKind, read_graph_file
from tests.support import paths
from tests.support.child_env import child_env
from tests.support.ge_training_model import training_model_def
from tests.support.graph_dumps import write_graph_dumps

SAMPLES = sorted((paths.DATA / "atc-json").glob("*.json"))


def run_opdiff(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "opdiff", *map(str, args)], capture_output=True, text=True,
                          env=child_env(COLUMNS="200", PATH="/usr/bin:/bin"))


@pytest.fixture(scope="module")
def dumps(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("ge")
    model = training_model_def()
    files = write_ge_graph_dumps(folder / "dumps", model)
    om = write_om(folder / "model.om", [[(MODEL_DEF, model.SerializeToString())]])
    return {"folder": folder, "files": files, "om": om, "model": model}


def test_both_forms_at_every_stage_read_as_the_om(dumps: dict) -> None:
    expected = opdiff.read_graph(dumps["om"])
    assert len(expected.graphs) == 2  # the root graph and its PartitionedCall's sub-graph
    names = [path.name for path in dumps["files"]]
    assert {name.rsplit("_", 1)[1].split(".")[0] for name in names} == set(STAGES)
    for path in dumps["files"]:
        graph = read_graph_file(path)
        assert graph.kind is (GraphKind.GE_ONNX if path.suffix == ".pbtxt" else GraphKind.GE_PROTO)
        assert graph.fusion_map == expected, path.name


def test_graph_json_equals_the_json_of_the_om(dumps: dict, tmp_path: Path) -> None:
    from_om = tmp_path / "om.json"
    assert run_opdiff("graph", dumps["om"], "--json", from_om).returncode == 0
    for path in dumps["files"][:2]:  # one file of each form
        out = tmp_path / f"{path.name}.json"
        result = run_opdiff("graph", path, "--json", out)
        assert result.returncode == 0, result.stderr
        assert out.read_bytes() == from_om.read_bytes(), path.name


def test_graph_lists_every_op_with_its_original_names(dumps: dict) -> None:
    fusion_map = opdiff.read_graph(dumps["om"])
    for path in dumps["files"][:2]:
        result = run_opdiff("graph", path, "--limit", "0")
        assert result.returncode == 0, result.stderr
        assert f"ops ({len(fusion_map.ops)})" in result.stdout
        rows = {line.split("│")[2].strip(): line.split("│")[4].strip() for line in result.stdout.splitlines()
                if line.count("│") == 5 and line.split("│")[1].strip().isdigit()}
        for op in fusion_map.ops:
            assert rows[op.name] == ", ".join(op.original_names), op.name


def test_compare_through_a_ge_dump_gives_the_rows_of_the_atc_json(dumps: dict, tmp_path: Path) -> None:
    fusion_map = opdiff.read_graph(dumps["om"])
    rule = write_atc_json(fusion_map, tmp_path / "rule.json")
    case = write_graph_dumps(fusion_map, tmp_path / "data", faulty_op="gelu_split_2")
    reference = opdiff.compare(case.npu, case.golden, fusion_rule=rule, csv=tmp_path / "json.csv")
    assert reference.summary()["compared"] > 0
    for path in dumps["files"][:2]:
        opdiff.compare(case.npu, case.golden, fusion_rule=path, csv=tmp_path / "ge.csv")
        assert (tmp_path / "ge.csv").read_text() == (tmp_path / "json.csv").read_text(), path.name


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.name for s in SAMPLES])
def test_real_graphs_read_the_same_through_ge_proto_text(sample: Path, tmp_path: Path) -> None:
    fusion_map = opdiff.read_graph(sample)
    text = tmp_path / "ge_proto_00000001_Build.txt"
    text.write_text(ge_proto_text(model_def_from_fusion_map(fusion_map)))
    assert opdiff.read_graph(text) == fusion_map


def test_onnx_form_without_strings_maps_ops_by_their_own_names(tmp_path: Path) -> None:
    path = tmp_path / "ge_onnx_00000002_graph_1_Build.pbtxt"
    path.write_text(ge_onnx_text(training_model_def(), with_strings=False))
    fusion_map = opdiff.read_graph(path)
    for op in fusion_map.ops:
        assert op.original_names == (op.name,)
        assert all(desc.origin_name == op.name for desc in op.output_descs)
    assert any("DUMP_GE_GRAPH=1" in note for note in fusion_map.warnings)
    result = run_opdiff("graph", path)
    assert result.returncode == 0 and "DUMP_GE_GRAPH=1" in result.stdout


def test_huge_strings_are_cut_and_lines_kept(tmp_path: Path) -> None:
    model = training_model_def()
    model.graph[1].op[2].attr["_huge_note"].s = b"x" * (STRING_LIMIT + 1)
    model.graph[1].op[1].attr["value"].t.data = bytes(range(256)) * 300
    path = tmp_path / "ge_proto_00000003_Build.txt"
    text = ge_proto_text(model) + "bogus_field_value { x: @ }\n"
    path.write_text(text)
    line = text.count("\n")
    with pytest.raises(GraphFormatError, match=rf"{path.name}: line {line}: "):
        opdiff.read_graph(path)
    path.write_text(ge_proto_text(model))
    graph = read_graph_file(path)
    assert graph.fusion_map == opdiff.read_graph(write_om(tmp_path / "m.om", [[(MODEL_DEF, model.SerializeToString())]]))
    assert any("3 string value(s) cut" in note for note in graph.fusion_map.warnings)


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 7, 64])
def test_scanner_gives_the_same_text_at_any_chunk_size(chunk: int) -> None:
    text = ('\xef\xbb\xbf# a comment with a "quote" and a { brace\n'.encode() + b'version: 2\ngraph {\n  name: "g\\"}\\\\"\n'
            b"  op { name: 'a\\'b' attr { key: \"k\" value { s: \"\\\\\" } } }\n  op < name: \"c\" >\n}\n"
            b'attr { key: "bt" value { bt: "\\000\\"\\\\" } }\n')
    whole = [(s.container, s.line, s.text) for s in TextScanner(io.BytesIO(text), "t", chunk_bytes=1 << 20).segments()]
    pieces = [(s.container, s.line, s.text) for s in TextScanner(io.BytesIO(text), "t", chunk_bytes=chunk).segments()]
    assert pieces == whole
    assert [segment[:2] for segment in whole] == [(None, 1), (0, 3), (None, 7)]
    assert b'bt: ""' in whole[2][2] and b"op < name" in whole[1][2]


DAMAGES = [
    ("a token protobuf refuses", lambda t: t.replace('name: "conv1relu1"', "name: conv1relu1 ]", 1), "conv1relu1 ]"),
    ("a truncated file", lambda t: t[: len(t) * 2 // 3], "the file ends inside a message"),
    ("a string not closed", lambda t: t.replace('"conv1relu1"', '"conv1relu1', 1), "not closed on its line"),
    ("a brace too many", lambda t: t.replace('name: "conv1relu1"', 'name: "conv1relu1" }', 1), "conv1relu1"),
]


@pytest.mark.parametrize("form", ["ge_proto", "ge_onnx"])
@pytest.mark.parametrize("what,damage,marker", DAMAGES, ids=[d[0] for d in DAMAGES])
def test_damaged_text_exits_2_naming_file_and_line(form: str, what: str, damage, marker: str, tmp_path: Path) -> None:
    model = training_model_def()
    text = ge_proto_text(model) if form == "ge_proto" else ge_onnx_text(model)
    damaged = damage(text)
    assert damaged != text
    path = tmp_path / (f"{form}_00000004_Build." + ("txt" if form == "ge_proto" else "pbtxt"))
    path.write_text(damaged)
    lines = damaged.splitlines()
    changed = next((k for k, (a, b) in enumerate(zip(lines, text.splitlines())) if a != b), len(lines) - 1) + 1
    for args in (("graph", path), ("compare", "-m", tmp_path, "-g", tmp_path, "-f", path)):
        result = run_opdiff(*args)
        assert result.returncode == 2, (what, result.stdout, result.stderr)
        message = result.stderr.strip()
        assert message.count("\n") == 0 and "Traceback" not in message, message
        assert f"{path}: line " in message, message
        line = int(message.split(f"{path}: line ", 1)[1].split(":", 1)[0])
        if marker in ("the file ends inside a message",):
            assert line == len(lines) or line == len(lines) + 1, message
        elif what != "a brace too many":
            assert line == changed, message
        else:
            assert line >= changed, message  # a stray brace shows where the nesting fails, at or after it


def test_non_utf8_text_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "ge_proto_00000005_Build.txt"
    path.write_bytes(b'version: 2\ngraph {\n  name: "\xff\xfe"\n}\n')
    with pytest.raises(GraphFormatError, match=r"line 3: not UTF-8 text"):
        opdiff.read_graph(path)


def test_json_written_for_a_ge_dump_reads_back(dumps: dict, tmp_path: Path) -> None:
    out = tmp_path / "rule.json"
    assert run_opdiff("graph", dumps["files"][1], "--json", out).returncode == 0
    doc = json.loads(out.read_text())
    assert [graph["name"] for graph in doc["graph"]] == list(opdiff.read_graph(dumps["om"]).graphs)


def test_the_minimal_onnx_schema_agrees_with_the_onnx_package() -> None:
    """ge_onnx.proto keeps ONNX's field names and numbers: the onnx package's own ModelProto parses the
    text the writer makes, and reads the bytes of the minimal schema's message as the same model."""
    onnx = pytest.importorskip("onnx")
    from google.protobuf import text_format

    from opdiff.graph.ge.writer import onnx_model_of

    mine = onnx_model_of(training_model_def())
    theirs = text_format.Parse(ge_onnx_text(training_model_def()), onnx.ModelProto())
    assert onnx.ModelProto.FromString(mine.SerializeToString()) == theirs
    assert theirs.graph.node[-1].op_type == "subgraph" and len(theirs.graph.node[-1].attribute[0].g.node) == 7


REAL_DUMP_QUIRKS = '''graph {
  name: "ge_default_1"
  op {
    name: "x"
    type: "Data"
    src_name: "a:b"
    attr {
      key: "_datadump_original_op_names"
      value {
        list {
          s: "x"
          val_type: VT_LIST_STRING
        }
      }
    }
    attr {
      key: "node_def"
      value {
        s: "\\n\\001x\\022\\013Placeholder\\372\\377"
      }
    }
    attr {
      key: "shape_range"
      value {
        list_list_int {
        }
      }
    }
    attr {
      key: "flags"
      value {
        list {
          b: true
          val_type: VT_LIST_BOOL
        }
      }
    }
    a_field_of_a_newer_ge: 7
    output_desc {
      dtype: DT_FLOAT
      a_newer_desc_message {
        depth: 1
      }
    }
  }
}
memory_size: 1024
'''


def test_what_real_ge_proto_dumps_hold_reads(tmp_path: Path) -> None:
    """Enums by name, a `:`-joined src_name, binary protobuf in an `s` attr, an empty list_list_int
    and fields this schema does not know (skipped, as unknown fields of the binary .om are)."""
    path = tmp_path / "ge_proto_00000006_Build.txt"
    path.write_text(REAL_DUMP_QUIRKS)
    graph = read_graph_file(path)
    (op,) = graph.fusion_map.ops
    assert (op.name, op.type, op.original_names, op.output_descs[0].dtype) == ("x", "Data", ("x",), "DT_FLOAT")
    assert graph.fusion_map.graphs == ("ge_default_1",)


def test_close_fusion_rule_may_be_a_ge_dump(dumps: dict, tmp_path: Path) -> None:
    fusion_map = opdiff.read_graph(dumps["om"])
    rule = write_atc_json(fusion_map, tmp_path / "rule.json")
    case = write_graph_dumps(fusion_map, tmp_path / "data")
    args = ["compare", "-m", case.npu, "-g", case.npu]
    json_run = run_opdiff(*args, "-f", rule, "-cf", rule, "-out", tmp_path / "json")
    ge_run = run_opdiff(*args, "-f", dumps["files"][0], "-cf", dumps["files"][1], "-out", tmp_path / "ge")
    assert json_run.returncode == ge_run.returncode == 0, ge_run.stderr
    (json_csv,), (ge_csv,) = (tmp_path / "json").glob("*.csv"), (tmp_path / "ge").glob("*.csv")
    assert ge_csv.read_text() == json_csv.read_text()

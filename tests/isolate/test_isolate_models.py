"""`opdiff compare --isolate MODEL` on the project's own models (dump-onnx, fp16 and fusion on): a
clean run fails no op locally; two faults give exactly two culprits and inherited ops downstream;
int8 squeezenet's final Softmax is amplified, not a culprit; a changed dumped weight is a weight
mismatch; a model that is not ONNX, or to which no op maps, exits 2."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx  # ONNX Runtime runs here: not a core-facing test (.ci/run's sanitizer pass skips it)

import opdiff  # noqa: E402
from opdiff.cli import main  # noqa: E402
from opdiff.dumps.writer import Tensor, write_dump  # noqa: E402
from opdiff.producers import DumpOptions, Precision, dump_onnx  # noqa: E402
from opdiff.producers.model_inputs import input_specs, random_inputs  # noqa: E402
from opdiff.producers.onnx.light_models import light_model_names  # noqa: E402
from opdiff.report.tensor.isolation_csv import ISOLATION_COLUMNS  # noqa: E402
from opdiff.report.tensor.json_writer import load_schema  # noqa: E402
from tests.support.torch_style_model import torch_style_model  # noqa: E402

LIGHT = light_model_names()
QUICK = ("squeezenet",)  # the others take 5-60 s each here (big dense layers, hundreds of ops)


def dump_light(folder: Path, model: str, *extra: str) -> Path:
    """Golden and fp16 + fusion-on device runs of light model `model` through `opdiff dump-onnx`."""
    common = [f"light:{model}", "--randomize-weights", "0"]
    if not (folder / "g").exists():
        assert main(["dump-onnx", *common, "--random-inputs", "0", "-o", str(folder / "g")]) == 0
    name = "d" + "".join(e.replace("=", "_").replace("-", "") for e in extra)
    assert main(["dump-onnx", *common, "--input", f"{input_name(folder)}", "--dtype", "fp16", "--fusion", "on",
                 "--layout", "NC1HWC0", *extra, "-o", str(folder / name)]) == 0
    return folder / name


def input_name(folder: Path) -> str:
    """``NAME=FILE.npy`` of the golden run's one input (its file name is file-safe, '/' as '_')."""
    saved = sorted((folder / "g" / "inputs").glob("*.npy"))
    model = onnx.load(str(folder / "g" / "model.onnx"))
    weights = {init.name for init in model.graph.initializer}
    (name,) = [value.name for value in model.graph.input if value.name not in weights]
    assert len(saved) == 1
    return f"{name}={saved[0]}"


def compare_isolated(device: Path, golden: Path, out: Path, *extra: str) -> dict:
    """`opdiff compare --isolate` of a device run against a golden run: its isolation CSV rows, its JSON findings."""
    code = main(["compare", "-m", str(device / "dump"), "-g", str(golden / "golden"), "-f", str(device / "fusion_rule.json"),
                 "--isolate", str(golden / "model.onnx"), "-out", str(out), "--report", "json,html", *extra])
    assert code == 0
    (csv_path,) = out.glob("isolation_*.csv")
    with open(csv_path, newline="") as handle:
        lines = list(csv.reader(handle))
    (json_path,) = out.glob("result_*.json")
    document = json.loads(json_path.read_text())
    (html_path,) = out.glob("result_*.html")
    assert '"local_verdict"' in html_path.read_text()  # the page's rows carry the local error
    return {"header": lines[0], "rows": [dict(zip(lines[0], line)) for line in lines[1:]],
            "findings": document["findings"], "json_rows": document["rows"], "document": document}


def ops_holding(device: Path, nodes):
    rule = opdiff.read_graph(device / "fusion_rule.json")
    return {op.name for op in rule.ops if set(nodes) & set(op.original_names)}


@pytest.mark.parametrize("model", [m if m in QUICK else pytest.param(m, marks=pytest.mark.slow) for m in LIGHT])
def test_a_clean_run_fails_no_op_locally(tmp_path, model):
    device = dump_light(tmp_path, model)
    result = compare_isolated(device, tmp_path / "g", tmp_path / "out")
    rows = result["rows"]
    assert result["header"] == list(ISOLATION_COLUMNS)
    assert rows and not [row["TensorIndex"] for row in rows if row["LocalVerdict"] == "fail"]
    assert not [row for row in rows if "weight mismatch" in row["Reason"]]
    not_isolated = [row for row in rows if row["LocalVerdict"] == "not isolated"]
    assert len(not_isolated) <= 0.1 * len(rows) and all(row["Reason"] for row in not_isolated)
    assert not [f for f in result["findings"] if f["kind"] in ("culprit op", "weight mismatch")]
    local = [row["local"] for row in result["json_rows"] if "local" in row]
    assert len(local) == len(rows) and {entry["verdict"] for entry in local} <= {"pass", "not isolated"}
    jsonschema.validate(result["document"], load_schema())


@pytest.mark.skipif("squeezenet" not in LIGHT, reason="this onnx wheel ships no light squeezenet")
def test_two_faults_far_apart_are_two_culprits_and_the_rest_inherits(tmp_path):
    model = onnx.load(str(_golden_model(tmp_path)))
    convs = [node.name for node in model.graph.node if node.op_type == "Conv"]
    faulted = (convs[2], convs[-4])
    device = dump_light(tmp_path, "squeezenet", "--fault", f"{faulted[0]}=2", "--fault", f"{faulted[1]}=2")
    result = compare_isolated(device, tmp_path / "g", tmp_path / "out", "--advisor")
    holding = ops_holding(device, faulted)
    assert len(holding) == 2
    failing = {row["NPUDump"] for row in result["rows"] if row["LocalVerdict"] == "fail"}
    assert failing == holding
    culprits = [f["op"] for f in result["findings"] if f["kind"] == "culprit op"]
    assert sorted(culprits) == sorted(holding)
    inherited = {f["op"] for f in result["findings"] if f["kind"] in ("inherited error", "amplified error")}
    failing_end_to_end = {row["tensor_index"].split(":")[0] for row in result["json_rows"]
                          if row["failing"] and ":output:" in row["tensor_index"]} - holding
    assert failing_end_to_end, "the faults reach the ops downstream"
    assert failing_end_to_end <= inherited
    passing_locally = {row["NPUDump"] for row in result["rows"] if row["LocalVerdict"] == "pass"}
    assert failing_end_to_end <= passing_locally


def _golden_model(folder: Path) -> Path:
    if not (folder / "g").exists():
        assert main(["dump-onnx", "light:squeezenet", "--randomize-weights", "0", "--random-inputs", "0", "-o", str(folder / "g")]) == 0
    return folder / "g" / "model.onnx"


@pytest.mark.skipif("squeezenet" not in LIGHT, reason="this onnx wheel ships no light squeezenet")
def test_int8_squeezenet_softmax_is_amplified_not_culprit(tmp_path):
    _golden_model(tmp_path)
    quant = tmp_path / "q"
    assert main(["dump-onnx", "light:squeezenet", "--randomize-weights", "0", "--input", input_name(tmp_path), "--qdq", "4",
                 "-o", str(quant)]) == 0
    result = compare_isolated(quant, tmp_path / "g", tmp_path / "out", "--advisor")
    rule = opdiff.read_graph(quant / "fusion_rule.json")
    softmax = next(op.name for op in rule.ops if op.type == "Softmax")
    (row,) = [row for row in result["rows"] if row["NPUDump"] == softmax]
    assert row["LocalVerdict"] == "pass"
    kinds = {f["kind"] for f in result["findings"] if f["op"] == softmax} - {"end-to-end verdict"}
    assert kinds == {"amplified error"}  # not "culprit op"
    assert any("amplifies the error it receives (x" in f["evidence"] for f in result["findings"] if f["op"] == softmax)


def _torch_style_runs(folder: Path, **options):
    model = torch_style_model()
    feeds = random_inputs(input_specs(model), seed=0)
    golden = dump_onnx(model, folder / "g", feeds, name="torch_style")
    device = dump_onnx(model, folder / "d", feeds, DumpOptions(fusion=True, precision=Precision.FP16, **options), name="torch_style")
    return golden, device


def test_a_dumped_weight_changed_by_the_dump_writer_is_a_weight_mismatch(tmp_path):
    golden, device = _torch_style_runs(tmp_path)
    rule = opdiff.read_graph(device.fusion_rule)
    op = rule.op("/stem/conv/Conv")
    assert [rule.producer(ref).type for ref in op.inputs][1] == "Const"
    path = opdiff.compare(device.tensor_folder, golden.tensor_folder, fusion_rule=rule).my_files["/stem/conv/Conv"]
    dump = opdiff.read_dump(path)
    inputs = [t.to_numpy() for t in dump.inputs]
    inputs[1] = inputs[1].copy()
    inputs[1].reshape(-1)[:5] *= np.float16(1.25)
    outputs = [Tensor(t.to_numpy(), origin_name=t.origin_name) for t in dump.outputs]
    write_dump(path, dump.op_name, inputs=inputs, outputs=outputs, dump_time=dump.dump_time)
    result = compare_isolated(device.folder, golden.folder, tmp_path / "out", "--advisor")
    mismatches = [f for f in result["findings"] if f["kind"] == "weight mismatch"]
    assert [f["op"] for f in mismatches] == ["/stem/conv/Conv"] and "input 1" in mismatches[0]["evidence"]
    (row,) = [row for row in result["rows"] if row["NPUDump"] == "/stem/conv/Conv"]
    assert "weight mismatch" in row["Reason"] and row["LocalVerdict"] == "pass"  # the device's output is untouched


def test_a_fault_fails_locally_and_is_a_weight_mismatch(tmp_path):
    golden, device = _torch_style_runs(tmp_path, faults=(("/encoder/blocks.1/conv2/Conv", 1.5),))
    result = compare_isolated(device.folder, golden.folder, tmp_path / "out", "--advisor")
    by_kind = {(f["kind"], f["op"]) for f in result["findings"]}
    assert ("culprit op", "/encoder/blocks.1/conv2/Conv") in by_kind
    assert ("weight mismatch", "/encoder/blocks.1/conv2/Conv") in by_kind
    assert not [f for f in result["findings"] if f["kind"] == "culprit op" and f["op"] != "/encoder/blocks.1/conv2/Conv"]


def test_an_onnx_model_is_isolated_without_importing_onnx_whole_or_ml_dtypes(tmp_path):
    # onnx's package imports ml_dtypes (0.6 s with numpy 2.4): --isolate reads, cuts and runs the
    # model with onnx's protobuf classes and ONNX Runtime alone. A fresh interpreter: here onnx is imported.
    golden, device = _torch_style_runs(tmp_path)
    argv = ["compare", "-m", str(device.tensor_folder), "-g", str(golden.tensor_folder), "-f", str(device.fusion_rule),
            "--isolate", str(golden.model_path), "-out", str(tmp_path / "out")]
    script = (f"import sys; from opdiff.cli import main; code = main({argv!r}); "
              "print(code, *sorted({'onnx', 'onnx.helper', 'ml_dtypes'} & set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1:] == ["0"]  # exit code 0, and none of them imported
    assert list((tmp_path / "out").glob("isolation_*.csv"))


def test_a_model_with_external_weights_isolates_as_the_same_model_with_its_weights_inside(tmp_path):
    golden, device = _torch_style_runs(tmp_path)
    external = tmp_path / "external"
    external.mkdir()
    (external / "golden").symlink_to(golden.tensor_folder)
    onnx.save(onnx.load(str(golden.model_path)), str(external / "model.onnx"), save_as_external_data=True, location="weights.bin",
              size_threshold=0)
    assert (external / "weights.bin").stat().st_size > 0
    inside = compare_isolated(device.folder, golden.folder, tmp_path / "out")["rows"]
    assert compare_isolated(device.folder, external, tmp_path / "out_external")["rows"] == inside


def test_a_model_that_is_not_onnx_exits_2_naming_it(tmp_path, capsys):
    golden, device = _torch_style_runs(tmp_path)
    not_onnx = tmp_path / "model.onnx"
    not_onnx.write_bytes(b"\x00\x01 not a model")
    code = main(["compare", "-m", str(device.tensor_folder), "-g", str(golden.tensor_folder), "-f", str(device.fusion_rule),
                 "--isolate", str(not_onnx), "-out", str(tmp_path / "out")])
    error = capsys.readouterr().err
    assert code == 2 and str(not_onnx) in error.replace("\n", "") and "not an ONNX model" in error
    assert not list((tmp_path / "out").glob("result_*.csv")) if (tmp_path / "out").exists() else True


def test_a_model_no_op_maps_to_exits_2(tmp_path, capsys):
    golden, device = _torch_style_runs(tmp_path)
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="unrelated")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    other = tmp_path / "other.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(other))
    code = main(["compare", "-m", str(device.tensor_folder), "-g", str(golden.tensor_folder), "-f", str(device.fusion_rule),
                 "--isolate", str(other), "-out", str(tmp_path / "out")])
    error = capsys.readouterr().err.replace("\n", "")
    assert code == 2 and str(other) in error and "no compared op maps" in error


def test_a_random_op_is_not_isolated_and_its_consumer_runs_on_its_dumped_values(tmp_path):
    from onnx import TensorProto, helper

    from opdiff.producers import OutputKind

    graph = helper.make_graph([helper.make_node("RandomUniformLike", ["x"], ["r"], name="rnd"),
                               helper.make_node("Add", ["x", "r"], ["y"], name="add")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    feeds = {"x": np.linspace(-1, 1, 64, dtype=np.float32)}
    golden = dump_onnx(model, tmp_path / "g", feeds, name="random")
    device = dump_onnx(model, tmp_path / "d", feeds, DumpOptions(kind=OutputKind.DEVICE), name="random")
    result = compare_isolated(device.folder, golden.folder, tmp_path / "out")
    by_op = {row["NPUDump"]: row for row in result["rows"]}
    assert by_op["rnd"]["LocalVerdict"] == "not isolated" and by_op["rnd"]["Reason"].startswith("random op: rnd")
    assert by_op["add"]["LocalVerdict"] == "pass" and float(by_op["add"]["LocalMaxAbsoluteError"]) == 0.0


def test_ops_of_one_structure_share_one_session(tmp_path):
    from onnx import TensorProto, helper, numpy_helper

    from opdiff.isolate.engine import isolate
    from opdiff.isolate.onnx_source import OnnxSource
    from opdiff.isolate.source_model import load_source_model
    from opdiff.producers import OutputKind

    nodes, weights, current = [], [], "x"
    for k in range(40):
        kind = ("Mul", "Add", "Tanh", "Relu")[k % 4]
        if kind in ("Mul", "Add"):
            weights.append(numpy_helper.from_array(np.full((1, 8), 1.0 + k / 100, np.float32), f"w{k}"))
            nodes.append(helper.make_node(kind, [current, f"w{k}"], [f"t{k}"], name=f"op{k}"))
        else:
            nodes.append(helper.make_node(kind, [current], [f"t{k}"], name=f"op{k}"))
        current = f"t{k}"
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
                              [helper.make_tensor_value_info(current, TensorProto.FLOAT, [1, 8])], weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    feeds = {"x": np.linspace(-1, 1, 8, dtype=np.float32).reshape(1, 8)}
    golden = dump_onnx(model, tmp_path / "g", feeds, name="chain")
    device = dump_onnx(model, tmp_path / "d", feeds, DumpOptions(kind=OutputKind.DEVICE, precision=Precision.FP16), name="chain")
    rule = opdiff.read_graph(device.fusion_rule)
    report = opdiff.compare(device.tensor_folder, golden.tensor_folder, fusion_rule=rule)
    run = isolate(report, rule, OnnxSource(load_source_model(golden.model_path)))
    assert (run.ops, run.isolated_ops, run.sessions) == (40, 40, 4)  # one session per op type, whatever the weights


def test_a_pb_model_without_tensorflow_exits_2_with_the_install_hint(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "tensorflow", None)  # None in sys.modules makes `import tensorflow` fail
    golden, device = _torch_style_runs(tmp_path)
    graph = tmp_path / "model.pb"
    graph.write_bytes(b"\x0a\x00")
    code = main(["compare", "-m", str(device.tensor_folder), "-g", str(golden.tensor_folder), "-f", str(device.fusion_rule),
                 "--isolate", str(graph), "-out", str(tmp_path / "out")])
    error = capsys.readouterr().err.replace("\n", "")
    assert code == 2 and str(graph) in error and "tensorflow not installed" in error and 'pip install "opdiff[tf]"' in error


@pytest.mark.skipif("squeezenet" not in LIGHT, reason="this onnx wheel ships no light squeezenet")
def test_model_explorer_node_data_carries_the_local_error_and_the_onnx_names(tmp_path):
    model = onnx.load(str(_golden_model(tmp_path)))
    faulted = [node.name for node in model.graph.node if node.op_type == "Conv"][2]
    device = dump_light(tmp_path, "squeezenet", "--fault", f"{faulted}=2")
    out = tmp_path / "out"
    assert main(["compare", "-m", str(device / "dump"), "-g", str(tmp_path / "g" / "golden"), "-f", str(device / "fusion_rule.json"),
                 "--isolate", str(tmp_path / "g" / "model.onnx"), "-out", str(out), "--report", "model-explorer"]) == 0
    (record_path,) = out.glob("result_*.model_explorer.json")
    record = json.loads(record_path.read_text())
    assert set(record["onnx_node_data"]) == {"cosine", "verdict", "local_error"} and "local_error" in record["node_data"]
    (holder,) = ops_holding(device, [faulted])
    (local,) = json.loads((out / record["node_data"]["local_error"]).read_text()).values()  # {graph id: GraphNodeData}
    errors = {node: result["value"] for node, result in local["results"].items()}
    assert max(errors, key=errors.__getitem__) == holder  # the faulted op's own error stands out
    onnx_verdict = json.loads((out / record["onnx_node_data"]["verdict"]).read_text())["results"]  # no graph id: the ONNX graph shown
    assert onnx_verdict[faulted]["value"] == 1
    assert set(onnx_verdict) <= {node.name for node in model.graph.node}

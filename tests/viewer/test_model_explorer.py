"""opdiff with the real Model Explorer: its own ExtensionManager loads opdiff.viewer and converts the
demo's .om and rule; the node data of ``compare --report model-explorer`` loads into its own node-data
classes; ``opdiff view`` answers on 127.0.0.1 (health check, the node data it serves, a conversion).

Model Explorer is the optional extra ``opdiff[view]``; without it these tests skip (.ci/run installs
it on x86-64, the only machine its adapter wheel exists for)."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

import opdiff
from opdiff.demo.report import write_case
from opdiff.graph.ge.writer import write_ge_graph_dumps
from opdiff.graph.model_def_builder import model_def_from_fusion_map
from opdiff.graph.om.writer import write_fusion_map_om
from tests.support.child_env import child_env

pytest.importorskip("model_explorer", reason="Model Explorer (the [view] extra, ai-edge-model-explorer) is not installed")

from dacite import Config, from_dict
from model_explorer.extension_manager import ExtensionManager
from model_explorer.node_data_builder import GraphNodeData, ModelNodeData

RULE_GRAPH_ID = "opdiff_demo_graph"  # graph[0].name of the demo's rule
OM_GRAPH_ID = "opdiff_demo"  # the model name of the .om written from it
SERVER_START_S = 180  # a generous bound, for a loaded machine: the test never waits longer than needed


def _opdiff(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "opdiff", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **child_env()}, timeout=600)


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    """The demo's dumps and rule, its .om, and compare --report model-explorer's output folder."""
    folder = tmp_path_factory.mktemp("me")
    paths = write_case(folder, seed=0, fault="block2/conv1", fault_scale=1.5)
    paths["om"] = write_fusion_map_om(folder / "model.om", opdiff.read_graph(paths["rule"]))
    paths["out"] = folder / "out"
    done = _opdiff("compare", "-m", str(paths["npu"]), "-g", str(paths["golden"]), "-f", str(paths["rule"]),
                   "-out", str(paths["out"]), "--report", "model-explorer", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "model-explorer report:" in done.stdout
    return paths


def _convert(manager: ExtensionManager, model: Path) -> Dict[str, Any]:
    response = manager.run_cmd({"extensionId": "opdiff_adapter", "cmdId": "convert", "modelPath": str(model),
                                "settings": {}, "deleteAfterConversion": False})
    (graph,) = response["graphs"]
    return graph  # type: ignore[no-any-return]


def _node_data_files(out: Path) -> List[Path]:
    return sorted(out.glob("*.node_data.json"))


def test_extension_manager_loads_opdiff_viewer_and_converts_the_demo_and_ge_dumps(case: Dict[str, Path]) -> None:
    manager = ExtensionManager(["opdiff.viewer"])
    manager.load_extensions()
    assert "opdiff_adapter" in [ext["id"] for ext in manager.get_extensions_metadata()]
    rule = opdiff.read_graph(case["rule"])
    for model, graph_id in ((case["om"], OM_GRAPH_ID), (case["rule"], RULE_GRAPH_ID)):
        graph = _convert(manager, model)
        assert graph["id"] == graph_id
        nodes = {node["id"]: node for node in graph["nodes"]}
        assert list(nodes) == [op.name for op in rule.ops]
        for op in rule.ops:
            node = nodes[op.name]
            namespace, _, label = op.name.rpartition("/")
            assert (node["namespace"], node["label"]) == (namespace, label)
            assert [(e["sourceNodeId"], e["sourceNodeOutputId"]) for e in node["incomingEdges"]] == \
                [(ref.producer, str(ref.index)) for ref in op.inputs]
            attrs = {kv["key"]: kv["value"] for kv in node["attrs"]}
            assert attrs["type"] == op.type
            assert attrs["original ops"] == ", ".join(op.original_names)
            outputs = [{kv["key"]: kv["value"] for kv in item["attrs"]} for item in node["outputsMetadata"]]
            assert [(o["dtype"], o["layout"], o["shape"]) for o in outputs] == \
                [(d.dtype, d.origin_format, str(list(d.origin_shape or ()))) for d in op.output_descs]
    # GE graph dumps of the same model: the same nodes, named by the model (the ge_onnx form records
    # no model name: by its first graph); compare with one as the rule keys its node data the same way
    proto, onnx_form = write_ge_graph_dumps(case["om"].parent / "ge", model_def_from_fusion_map(rule), stages=("Build",))
    for dump, graph_id in ((proto, OM_GRAPH_ID), (onnx_form, RULE_GRAPH_ID)):
        graph = _convert(manager, dump)
        assert graph["id"] == graph_id, dump.name
        assert [node["id"] for node in graph["nodes"]] == [op.name for op in rule.ops]
        out = dump.parent / f"out-{dump.stem}"
        done = _opdiff("compare", "-m", str(case["npu"]), "-g", str(case["golden"]), "-f", str(dump), "-out", str(out),
                       "--report", "model-explorer", cwd=dump.parent)
        assert done.returncode == 0, done.stderr
        (verdict,) = out.glob("*.verdict.node_data.json")
        assert list(json.loads(verdict.read_text())) == [graph_id]
    fused = nodes["block2/relu1_fused"]
    assert {kv["key"]: kv["value"] for kv in fused["attrs"]}["original ops"] == "block2/conv1, block2/bn1, block2/relu1"


def test_node_data_loads_into_model_explorer_classes(case: Dict[str, Path]) -> None:
    files = _node_data_files(case["out"])
    metrics = sorted(path.name.split(".")[1] for path in files)
    assert metrics == ["cosine", "norm_ratio_error", "verdict"]
    record = json.loads(next(case["out"].glob("*.model_explorer.json")).read_text())
    assert record["rule"] == str(case["rule"].resolve()) and record["graph_id"] == RULE_GRAPH_ID
    ops = {op.name for op in opdiff.read_graph(case["rule"]).ops}
    by_metric: Dict[str, GraphNodeData] = {}
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        document = json.loads(path.read_text())
        assert list(document) == [RULE_GRAPH_ID]
        data = from_dict(GraphNodeData, document[RULE_GRAPH_ID], config=Config(strict=True))
        # Model Explorer writes back what the file holds (beside its own defaults for the other fields)
        written = json.loads(ModelNodeData(graphsData={RULE_GRAPH_ID: data}).to_json_string())[RULE_GRAPH_ID]
        assert {key: written[key] for key in document[RULE_GRAPH_ID]} == document[RULE_GRAPH_ID]
        assert set(data.results) <= ops
        by_metric[path.name.split(".")[1]] = data
    verdict = by_metric["verdict"].results
    assert verdict["input"].value == 2  # not compared: the model input has no golden of its own here
    assert verdict["block1/relu1_fused"].value == 0
    assert verdict["block2/relu1_fused"].value == 1  # the faulty conv is fused into it
    assert [(t.value, t.bgColor) for t in by_metric["verdict"].thresholds] == \
        [(0, verdict["block1/relu1_fused"].bgColor), (1, verdict["block2/relu1_fused"].bgColor), (2, verdict["input"].bgColor)]
    report = opdiff.compare(case["npu"], case["golden"], fusion_rule=case["rule"])
    worst = min(row.metrics.cosine_similarity for row in report.rows if row.tensor.op == "block2/relu1_fused" and row.metrics)
    assert by_metric["cosine"].results["block2/relu1_fused"].value == worst


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(url: str) -> Tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.read()


@contextmanager
def _serving(*args: str, **env: str) -> Iterator[Tuple[str, subprocess.Popen[str]]]:
    """`opdiff view ARGS --no-browser` on a free port of 127.0.0.1, until it answers; stopped with Ctrl-C.
    `env`: variables the child gets beside this process's."""
    port = _free_port()
    child = subprocess.Popen([sys.executable, "-m", "opdiff", "view", *args, "--port", str(port), "--no-browser"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env={**os.environ, **child_env(PYTHONUNBUFFERED="1", **env)})
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            assert child.poll() is None, child.communicate()[0]
            try:
                if _get(f"{base}/check_health") == (200, b"model_explorer_ok"):
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "opdiff view did not answer"
            time.sleep(0.2)
        yield base, child
    finally:
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


@pytest.fixture
def view_server(case: Dict[str, Path]) -> Iterator[Tuple[str, subprocess.Popen[str]]]:
    with _serving(str(case["out"])) as served:
        yield served


def test_view_answers_on_127_0_0_1_with_the_node_data(case: Dict[str, Path], view_server: Tuple[str, subprocess.Popen[str]]) -> None:
    base, child = view_server
    for index, path in enumerate(_node_data_files(case["out"])):
        status, body = _get(f"{base}/api/v1/load_node_data?node_data_index={index}")
        assert status == 200 and json.loads(json.loads(body)["content"]) == json.loads(path.read_text())
    command = {"extensionId": "opdiff_adapter", "cmdId": "convert", "modelPath": str(case["rule"].resolve()),
               "settings": {}, "deleteAfterConversion": False}
    _, body = _get(f"{base}/api/v1/send_command?json={urllib.parse.quote(json.dumps(command))}")
    assert json.loads(body)["graphs"][0]["id"] == RULE_GRAPH_ID
    child.send_signal(signal.SIGINT)
    output = child.communicate(timeout=60)[0]
    assert f"{base}/?data=" in output  # the URL, with the graph and node data it loads
    assert "opdiff_adapter" in urllib.parse.unquote(output)


@pytest.fixture
def silent_proxy() -> Iterator[str]:
    """A proxy on 127.0.0.1 that takes connections and never answers: an address that hangs, as PyPI
    does behind a firewall that drops or a proxy that stalls."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: List[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()
        for connection in held:
            connection.close()


def test_ctrl_c_stops_view_at_once_while_model_explorers_version_check_hangs(case: Dict[str, Path], silent_proxy: str) -> None:
    # Model Explorer asks PyPI for its newest version, with no time-out, in a thread the exit waits for
    with _serving(str(case["out"]), HTTPS_PROXY=silent_proxy, https_proxy=silent_proxy, NO_PROXY="",
                  no_proxy="") as (_, child):
        child.send_signal(signal.SIGINT)
        output = child.communicate(timeout=60)[0]  # before: never, the exit waited on the stalled request
        assert child.returncode == 0, output
        assert "opdiff view: stopped (Ctrl+C)" in output


def test_ctrl_c_during_model_explorers_start_up_stops_view(case: Dict[str, Path], silent_proxy: str) -> None:
    # Model Explorer's start-up asks its own server for "/" until it answers, in a loop whose bare
    # except swallows a Ctrl-C; through a proxy that never answers it stays in that loop
    with _serving(str(case["out"]), HTTP_PROXY=silent_proxy, http_proxy=silent_proxy, NO_PROXY="", no_proxy="") as (_, child):
        child.send_signal(signal.SIGINT)
        output = child.communicate(timeout=60)[0]  # before: never
        assert child.returncode == 0, output
        assert "opdiff view: stopped (Ctrl+C)" in output and "Press Ctrl+C to stop" not in output


def test_view_on_a_port_in_use_says_so_and_exits_1(case: Dict[str, Path], tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        done = _opdiff("view", str(case["out"]), "--port", str(taken.getsockname()[1]), "--no-browser", cwd=tmp_path)
    assert done.returncode == 1 and "already in use" in done.stdout


def test_view_warns_for_another_host_and_hints_without_the_extra(case: Dict[str, Path], tmp_path: Path) -> None:
    done = _opdiff("view", str(case["out"]), "--host", "0.0.0.0", "--model", str(tmp_path / "missing.om"), cwd=tmp_path)
    assert done.returncode == 2
    assert "warning: Model Explorer listens on 0.0.0.0" in done.stderr and "/api/v1/read_text_file" in done.stderr
    assert "missing.om: no such model file" in done.stderr
    without = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['model_explorer'] = None; from opdiff.cli import main; "
         f"sys.exit(main(['view', {str(case['out'])!r}]))"],
        capture_output=True, text=True, env={**os.environ, **child_env()}, timeout=120)
    assert without.returncode == 2 and 'pip install "opdiff[view]"' in without.stderr
    empty = _opdiff("view", str(tmp_path), cwd=tmp_path)
    assert empty.returncode == 2 and "no Model Explorer node data" in empty.stderr


def test_npu_vs_npu_node_data_is_one_graphs_and_view_asks_for_the_model(case: Dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = _opdiff("compare", "-m", str(case["npu"]), "-g", str(case["npu"]), "-out", str(out), "--report", "model-explorer",
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    record = json.loads(next(out.glob("*.model_explorer.json")).read_text())
    assert record["rule"] is None and record["graph_id"] is None
    for path in _node_data_files(out):
        # no rule, no graph id: a single graph's node data, which Model Explorer applies to the graph it shows
        data = from_dict(GraphNodeData, json.loads(path.read_text()), config=Config(strict=True))
        assert "block2_relu1_fused" in data.results  # by name: the op as its dump file names it ('/' escaped)
    verdict = from_dict(GraphNodeData, json.loads(next(out.glob("*.verdict.node_data.json")).read_text()))
    assert verdict.results["block2_relu1_fused"].value == 0  # the same dumps on both sides pass
    asked = _opdiff("view", str(out), "--no-browser", cwd=tmp_path)
    assert asked.returncode == 2 and "name the graph with --model" in asked.stderr


def test_view_shows_the_source_onnx_model_through_model_explorer_onnx(case: Dict[str, Path], tmp_path: Path) -> None:
    pytest.importorskip("model_explorer_onnx", reason="model-explorer-onnx (the [view] extra) is not installed")
    from onnx import TensorProto, helper, save

    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="stem/relu")], "source",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    model = tmp_path / "model.onnx"
    save(helper.make_model(graph), str(model))
    with _serving(str(case["out"]), "--model", str(model)) as (base, _):
        command = {"extensionId": "onnx_adapter", "cmdId": "convert", "modelPath": str(model), "settings": {},
                   "deleteAfterConversion": False}
        _, body = _get(f"{base}/api/v1/send_command?json={urllib.parse.quote(json.dumps(command))}")
        response = json.loads(body)
        assert "error" not in response, response
        graphs = response.get("graphs") or [g for c in response["graphCollections"] for g in c["graphs"]]
        assert "Relu" in [node["label"] for g in graphs for node in g["nodes"]]

"""`opdiff compare --isolate MODEL.pb`: a frozen TensorFlow graph's ops re-run alone in a TensorFlow
Session on the device's own inputs. The golden run is dump-tf's; the device run is written here with
the project's dump writer from TensorFlow's own tensors of a faulted copy of the graph (fp16, one
NPU op holding two TF nodes; 4-D activations in NC1HWC0 and the conv weight in FRACTAL_Z, their
origin NHWC and HWCN as GE writes it for a TF model), with an atc JSON fusion rule mapping each NPU
op to its TF nodes."""

import csv
import json
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import pytest

from tests.support.tf_graphs import small_net_graph_def, write_pb

pytestmark = pytest.mark.tf

from opdiff.cli import main  # noqa: E402
from opdiff.conventions.dump_names import device_file_name  # noqa: E402
from opdiff.dumps.writer import Tensor, write_dump  # noqa: E402
from opdiff.graph.json_export import write_atc_json  # noqa: E402
from opdiff.graph.rule_builder import RuleOp, RuleOutput, fusion_rule  # noqa: E402
from opdiff.producers.file_names import FolderNames  # noqa: E402
from opdiff.producers.tf.fetch import fetch_all_outputs  # noqa: E402

TIMESTAMP = 1_700_000_000_000_000
# NPU op -> (type, its TF nodes, its inputs as TF tensors, its outputs as TF tensors); Consts hold weights
NPU_OPS: Sequence[Tuple[str, str, Tuple[str, ...], Tuple[str, ...], Tuple[str, ...]]] = (
    ("x", "Data", ("x",), (), ("x:0",)),
    ("conv/w", "Const", (), (), ("conv/w:0",)),
    ("conv/b", "Const", (), (), ("conv/b:0",)),
    ("conv/conv_bias", "Conv2D", ("conv/conv", "conv/bias"), ("x:0", "conv/w:0", "conv/b:0"), ("conv/bias:0",)),
    ("relu", "Relu", ("relu",), ("conv/bias:0",), ("relu:0",)),
    ("flatten", "Reshape", ("flatten",), ("relu:0",), ("flatten:0",)),
    ("fc/w", "Const", (), (), ("fc/w:0",)),
    ("fc/matmul", "MatMulV2", ("fc/matmul",), ("flatten:0", "fc/w:0"), ("fc/matmul:0",)),
    ("softmax", "Softmax", ("softmax",), ("fc/matmul:0",), ("softmax:0",)),
)


WEIGHTS = ("conv/w:0", "conv/b:0", "fc/w:0")


def origin_format(array: np.ndarray) -> Optional[str]:
    """GE's origin format of a TF model's 4-D tensor: NHWC for activations, HWCN for a conv weight."""
    if array.ndim != 4:
        return None
    return "HWCN" if array.shape == (3, 3, 3, 4) else "NHWC"


def stored(array: np.ndarray, weight: bool) -> Tensor:
    """How the device stores a tensor: fp16; 4-D in NC1HWC0 (activations) or FRACTAL_Z (the conv weight)."""
    if array.ndim != 4:
        return Tensor(array, dtype="float16")
    if weight:
        return Tensor(array, layout="FRACTAL_Z", logical_format="HWCN", dtype="float16")
    return Tensor(array, layout="NC1HWC0", logical_format="NHWC", dtype="float16")


def device_run(folder: Path, faulted_pb_def, feeds: Dict[str, np.ndarray]) -> Tuple[Path, Path]:
    """NPU dumps (fp16) of the faulted graph's own tensors, and the fusion rule: (dump folder, rule file)."""
    tensors = fetch_all_outputs(faulted_pb_def, feeds).tensors
    producer = {tensor: name for name, _, _, _, outs in NPU_OPS for tensor in outs}
    dumps = folder / "dump"
    dumps.mkdir(parents=True)
    names = FolderNames(dumps, TIMESTAMP)
    ops: List[RuleOp] = []
    for position, (name, kind, originals, inputs, outputs) in enumerate(NPU_OPS):
        refs = [f"{producer[t]}:0" for t in inputs]
        descs = [RuleOutput(t.rpartition(":")[0] if kind != "Const" else "", 0, tensors[t].shape, "ND", "DT_FLOAT16",
                        ge_fmt=origin_format(tensors[t])) for t in outputs]
        ops.append(RuleOp(name, kind, position, refs, list(originals) if originals else None, descs))
        if kind in ("Data", "Const"):
            continue
        stamp = TIMESTAMP + position
        write_dump(names.path_for(device_file_name(kind, name, position + 1, 0, stamp)), name,
                   inputs=[stored(tensors[t], t in WEIGHTS) for t in inputs],
                   outputs=[stored(tensors[t], False) for t in outputs], dump_time=stamp)
    names.write_mapping()
    rule_path = folder / "fusion_rule.json"
    write_atc_json(fusion_rule(ops), rule_path)
    return dumps, rule_path


def isolate_against_golden(tmp_path: Path, scales: Dict[str, float]) -> Tuple[Dict[str, Dict[str, str]], List[dict]]:
    """dump-tf's golden of the clean graph, a device run of the graph with `scales`, and
    `compare --isolate model.pb`: the isolation CSV's rows by NPU op, and the JSON report's findings."""
    write_pb(small_net_graph_def(), tmp_path / "net.pb")
    assert main(["dump-tf", str(tmp_path / "net.pb"), "--random-inputs", "0", "-o", str(tmp_path / "g")]) == 0
    feeds = {"x": np.load(tmp_path / "g" / "inputs" / "x.npy")}
    dumps, rule_path = device_run(tmp_path / "d", small_net_graph_def(scales), feeds)
    out = tmp_path / "out"
    assert main(["compare", "-m", str(dumps), "-g", str(tmp_path / "g" / "golden"), "-f", str(rule_path),
                 "--isolate", str(tmp_path / "g" / "model.pb"), "-out", str(out), "--report", "json"]) == 0
    (csv_path,) = out.glob("isolation_*.csv")
    with open(csv_path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    (json_path,) = out.glob("result_*.json")
    return {row["NPUDump"]: row for row in rows}, json.loads(json_path.read_text())["findings"]


def test_a_clean_tf_run_passes_every_op_locally(tmp_path):
    rows, findings = isolate_against_golden(tmp_path, {})
    assert not [f for f in findings if f["kind"] in ("culprit op", "weight mismatch")]
    assert set(rows) == {"conv/conv_bias", "relu", "flatten", "fc/matmul", "softmax"}
    assert {name: row["LocalVerdict"] for name, row in rows.items()} == dict.fromkeys(rows, "pass")
    assert not any(row["Reason"] for row in rows.values())
    assert rows["conv/conv_bias"]["OriginalOps"] == "conv/conv;conv/bias"


def test_a_fault_in_one_ops_weights_fails_that_op_alone_locally(tmp_path):
    rows, findings = isolate_against_golden(tmp_path, {"fc/w": 1.5})
    verdicts = {name: row["LocalVerdict"] for name, row in rows.items()}
    assert verdicts == {"conv/conv_bias": "pass", "relu": "pass", "flatten": "pass", "fc/matmul": "fail", "softmax": "pass"}
    assert "weight mismatch: input 1 (fc/w/read:0)" in rows["fc/matmul"]["Reason"]
    kinds = {(f["kind"], f["op"]) for f in findings}
    assert {op for kind, op in kinds if kind == "culprit op"} == {"fc/matmul"}
    assert ("weight mismatch", "fc/matmul") in kinds
    # downstream, softmax fails end to end and passes alone: its error is inherited
    assert {op for kind, op in kinds if kind in ("inherited error", "amplified error")} >= {"softmax"}


def test_a_random_op_is_not_isolated(tmp_path):
    from tests.support.tf_graphs import tf, v1

    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [16], name="x")
        noise = v1.random_uniform([16], name="rnd")
        tf.add(x, noise, name="add")
    write_pb(graph.as_graph_def(), tmp_path / "r.pb")
    from opdiff.isolate.subgraph import NotIsolated
    from opdiff.isolate.tf_source import load_tf_source

    source = load_tf_source(tmp_path / "r.pb")
    (draw,) = [node.name for node in graph.as_graph_def().node if node.op == "RandomUniform"]
    with pytest.raises(NotIsolated, match=f"random op: {draw}"):
        source.local_golden((draw,), {}, [f"{draw}:0"])
    with pytest.raises(NotIsolated, match=f"input without a dump: tensor {draw}:0 \\(made by {draw}, outside the op\\)"):
        source.local_golden(("add",), {}, ["add:0"])


def test_a_file_that_is_not_a_graph_def_exits_2_naming_it(tmp_path, capsys):
    bad = tmp_path / "model.pb"
    bad.write_bytes(b"\x00\x01 not a model")
    empty = tmp_path / "g"
    empty.mkdir()
    rule_path = tmp_path / "rule.json"
    write_atc_json(fusion_rule([RuleOp("x", "Data", 0, [], ["x"], [RuleOutput("x", 0, [1])])]), rule_path)
    code = main(["compare", "-m", str(empty), "-g", str(empty), "-f", str(rule_path), "--isolate", str(bad),
                 "-out", str(tmp_path / "out")])
    error = capsys.readouterr().err.replace("\n", "")
    assert code == 2 and str(bad) in error and "not a frozen TensorFlow GraphDef" in error


def test_control_flow_and_a_refused_fetch_are_not_isolated(tmp_path):
    from opdiff.dumps.reader import read_dump
    from opdiff.isolate.subgraph import NotIsolated
    from opdiff.isolate.tf_source import load_tf_source
    from tests.support.tf_graphs import control_flow_v1, tf, v1

    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [4], name="x")
        with control_flow_v1():
            v1.cond(tf.reduce_sum(x) > 0.0, lambda: x * 2.0, lambda: x + 1.0, name="branch")
        tf.nn.relu(x, name="relu")
    graph_def = graph.as_graph_def()
    write_pb(graph_def, tmp_path / "c.pb")
    source = load_tf_source(tmp_path / "c.pb")
    switch = next(node.name for node in graph_def.node if node.op == "Switch")
    with pytest.raises(NotIsolated, match=f"control flow: {switch} \\(Switch\\)"):
        source.local_golden((switch,), {}, [f"{switch}:0"])
    # a dumped input of 3 values where the graph's tensor holds 4: TensorFlow refuses the feed
    dumped = read_dump(write_dump(tmp_path / "Relu.relu.1.0.1", "relu", inputs=[np.ones(3, np.float32)])).inputs[0]
    with pytest.raises(NotIsolated, match="TensorFlow refuses the fetch: Cannot feed value of shape"):
        source.local_golden(("relu",), {"x:0": dumped}, ["relu:0"])

"""`opdiff dump-tf`: golden files of a frozen TensorFlow graph that the test builds (conv, batch norm,
relu, matmul, softmax, random ops, a TF1 while loop, a cond and a tf.function), checked against what
TensorFlow's own session gives for each tensor. Runs in the venv tools/tf_env.py builds (.ci/run)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from tests.support.tf_required import tensorflow_or_skip

tf = tensorflow_or_skip()
pytestmark = pytest.mark.tf

from opdiff.cli import main  # noqa: E402
from opdiff.conventions.dump_names import escape_op_name  # noqa: E402
from opdiff.dumps.discovery import FileKind, index_folder  # noqa: E402
from tests.support.tf_graphs import conv_net_graph_def, write_pb  # noqa: E402

v1 = tf.compat.v1
LOOP_OPS_OUTSIDE = ("loop/Enter", "loop/Enter_1", "loop/Exit", "loop/Exit_1")  # the loop's inputs and results


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return write_pb(conv_net_graph_def(), tmp_path_factory.mktemp("tf") / "net.pb")


@pytest.fixture(scope="module")
def golden_run(model, tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    assert main(["dump-tf", str(model), "--random-inputs", "0", "--input-shape", "x:2,8,8,3", "-o", str(out)]) == 0
    return out


def manifest(folder):
    return json.loads((folder / "manifest.json").read_text())


def tensors_by_name(folder):
    """Golden files by name without the timestamp (``{op}.{index}``) -> array."""
    index = index_folder(folder / "golden")
    assert index.kind is FileKind.GOLDEN
    return {key: np.load(index.newest(key).path) for key in index.files}


def seeded_graph(model_path, random_ops):
    """The test's own graph, its random ops given the seeds the manifest lists."""
    graph_def = v1.GraphDef()
    graph_def.ParseFromString(model_path.read_bytes())
    seeds = {op["op"]: op for op in random_ops}
    for node in graph_def.node:
        if node.name in seeds and seeds[node.name]["seed"] is not None:
            node.attr["seed"].i, node.attr["seed2"].i = seeds[node.name]["seed"], seeds[node.name]["seed2"]
    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(graph_def, name="")
    return graph


def session_value(graph, tensor, feed):
    """What a fresh session gives for `tensor` alone, or None when it cannot fetch it. Grappler is off:
    with it, an inference FusedBatchNorm becomes an Add under the same name, and its outputs 1-5
    cannot be fetched at all (while the graph as written has them)."""
    config = v1.ConfigProto()
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    try:
        with v1.Session(graph=graph, config=config) as session:
            return session.run(tensor, feed)
    except (tf.errors.OpError, ValueError):
        return None


def test_every_fetchable_output_has_a_golden_file_with_the_session_value(model, golden_run):
    written = tensors_by_name(golden_run)
    document = manifest(golden_run)
    not_fetched = {(item["op"], item["output"]): item["reason"] for item in document["not_fetched"] if not item["function"]}
    graph = seeded_graph(model, document["random_ops"])
    feed = {"x:0": np.load(golden_run / "inputs" / "x.npy")}
    checked_types = set()
    for op in graph.get_operations():
        for position, tensor in enumerate(op.outputs):
            key = f"{escape_op_name(op.name)}.{position}"
            if op.name.startswith("loop/") and op.name not in LOOP_OPS_OUTSIDE:
                assert key not in written and "while loop" in not_fetched[(op.name, position)]
                continue
            if op.type == "FusedBatchNormV3" and position >= 3:  # unwritten memory: listed, never written
                assert key not in written and "reserve space" in not_fetched[(op.name, position)]
                continue
            value = session_value(graph, tensor, feed)
            if value is None:
                assert key not in written and (op.name, position) in not_fetched, tensor.name
                continue
            assert key in written, f"{tensor.name} is fetchable and has no golden file"
            np.testing.assert_array_equal(written[key], value, err_msg=tensor.name)
            checked_types.add(op.type)
    assert {"Placeholder", "Conv2D", "BiasAdd", "FusedBatchNormV3", "Relu", "MatMul", "Softmax", "RandomStandardNormal",
            "RandomUniform", "Exit", "Merge"} <= checked_types
    assert document["files"] == len(written)


def test_what_cannot_be_fetched_is_listed_with_why(golden_run):
    listed = manifest(golden_run)["not_fetched"]
    by_op = {item["op"]: item for item in listed if not item["function"]}
    assert "branch of a cond that was not taken" in by_op["branch/big"]["reason"]
    assert "branch/small" not in by_op  # the branch taken is fetched
    assert "while loop" in by_op["loop/mul"]["reason"]
    assert "log of a negative" in by_op["checked"]["reason"]
    assert by_op["after_checked"]["reason"].startswith("computed from op checked, which failed: ")
    assert "noise" not in by_op and "softmax" not in by_op
    functions = [item for item in listed if item["function"]]
    assert functions and all("PartitionedCall" in item["reason"] and item["output"] is None for item in functions)
    assert {item["op"] for item in functions} >= {"mul", "add"}  # the body of the tf.function: a * 2.0 + 1.0


def test_what_cannot_be_fetched_costs_a_few_runs(golden_run):
    # a probe of the feeds, the first run, a run naming the op that fails, and two runs for each of
    # the 7 tensors of the cond's dead branch (one that points at it, one that confirms it)
    assert manifest(golden_run)["session_runs"] == 1 + 1 + 1 + 2 * 7


def test_random_ops_are_seeded_and_listed(golden_run):
    listed = {op["op"]: op for op in manifest(golden_run)["random_ops"]}
    assert listed["noise/RandomStandardNormal"]["seeded_by_opdiff"] and listed["noise/RandomStandardNormal"]["seed"] == 0
    assert not listed["fixed_noise/RandomUniform"]["seeded_by_opdiff"]
    assert listed["fixed_noise/RandomUniform"]["seed2"] == 3  # the graph's own seed stays
    assert any("random ops" in note for note in manifest(golden_run)["notes"])


def test_two_runs_with_the_same_seed_write_the_same_tensors(model, golden_run, tmp_path):
    assert main(["dump-tf", str(model), "--random-inputs", "0", "--input-shape", "x:2,8,8,3", "-o", str(tmp_path / "again")]) == 0
    first, second = tensors_by_name(golden_run), tensors_by_name(tmp_path / "again")
    assert sorted(first) == sorted(second)
    for key, array in first.items():
        assert array.dtype == second[key].dtype and np.array_equal(array, second[key], equal_nan=True), key
    assert manifest(golden_run)["timestamp"] != manifest(tmp_path / "again")["timestamp"]
    stamps = {path.name.split(".")[-2] for path in (tmp_path / "again" / "golden").glob("*.npy")}
    assert stamps == {str(manifest(tmp_path / "again")["timestamp"])}


def test_another_random_seed_changes_the_random_tensors_only(model, golden_run, tmp_path):
    saved = golden_run / "inputs" / "x.npy"
    assert main(["dump-tf", str(model), "--input", f"x={saved}", "--random-seed", "1", "-o", str(tmp_path / "other")]) == 0
    first, other = tensors_by_name(golden_run), tensors_by_name(tmp_path / "other")
    assert np.array_equal(first["x.0"], other["x.0"]) and np.array_equal(first["relu.0"], other["relu.0"])
    assert not np.array_equal(first["noise_RandomStandardNormal.0"], other["noise_RandomStandardNormal.0"])
    assert np.array_equal(first["fixed_noise_RandomUniform.0"], other["fixed_noise_RandomUniform.0"])


def test_the_graph_that_ran_is_saved_with_its_seeds(golden_run):
    graph_def = v1.GraphDef()
    graph_def.ParseFromString((golden_run / "model.pb").read_bytes())
    noise = next(node for node in graph_def.node if node.name == "noise/RandomStandardNormal")
    assert (noise.attr["seed"].i, noise.attr["seed2"].i) != (0, 0)


def test_the_manifest_has_dump_onnx_form(golden_run):
    document = manifest(golden_run)
    assert list(document) == ["model", "kind", "tensors", "files", "fusion_rule", "timestamp", "ops", "mapped_share", "options",
                              "seconds", "notes", "outputs", "session_runs", "random_ops", "not_fetched"]
    assert document["model"] == "net" and document["kind"] == "golden" and document["fusion_rule"] is None
    assert document["options"] == {"random_seed": 0, "threads": 0, "fp16": False, "keep_fp32": {"names": [], "types": []}}
    # the model outputs: the float outputs of the ops nothing reads (the one after the run-time failure too, though it has no
    # file); not the batch norm's unread statistics, nor the while loop's result, which the cond reads
    assert document["outputs"] == ["branch/Merge:0", "after_checked:0", "doubled:0"]


@pytest.mark.cli_output
def test_unknown_dims_default_to_1_with_a_note(model, tmp_path, capsys):
    assert main(["dump-tf", str(model), "--random-inputs", "0", "-o", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "input x: unknown dims dim 0 set to 1" in out and "golden run" in out
    assert np.load(tmp_path / "o" / "inputs" / "x.npy").shape == (1, 8, 8, 3)


@pytest.mark.cli_output
@pytest.mark.parametrize(("shape", "message"), [
    ("y:1,8,8,3", "--input-shape names no Placeholder: y (inputs: x)"),
    ("x:2,8,8", "does not fit its shape [-1, 8, 8, 3]"),
    ("x:2,9,8,3", "does not fit its shape [-1, 8, 8, 3]"),
    ("x:-1,8,8,3", "a dim of -1 needs a size here"),
    ("x=2,8", "is not NAME:D1,D2,..."),
])
def test_a_bad_input_shape_exits_2_naming_it(model, tmp_path, capsys, shape, message):
    assert main(["dump-tf", str(model), "--random-inputs", "0", "--input-shape", shape, "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.cli_output
def test_bad_files_and_feeds(model, tmp_path, capsys):
    broken = tmp_path / "broken.pb"
    broken.write_bytes(b"\x0a\xff\xff not a graph")
    assert main(["dump-tf", str(broken), "--random-inputs", "0", "-o", str(tmp_path / "o")]) == 2
    assert f"{broken}: not a frozen TensorFlow GraphDef" in capsys.readouterr().err
    assert main(["dump-tf", str(tmp_path / "none.pb"), "-o", str(tmp_path / "o")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["dump-tf", str(model), "-o", str(tmp_path / "o")]) == 2
    assert "no value for input(s) x" in capsys.readouterr().err
    wrong = tmp_path / "wrong.npy"
    np.save(wrong, np.zeros((2, 5), np.float32))
    assert main(["dump-tf", str(model), "--input", f"x={wrong}", "-o", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert "the run failed" in err and "shape" in err


def test_the_main_suite_modules_do_not_import_tensorflow():
    script = ("import sys, opdiff, opdiff.cli, opdiff.producers, opdiff.commands.dump_tf, opdiff.producers.tf.dump\n"
              "opdiff.cli.build_parser()\n"
              "sys.exit('tensorflow' in sys.modules)\n")
    assert subprocess.run([sys.executable, "-c", script], timeout=120).returncode == 0

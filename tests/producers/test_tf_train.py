"""`opdiff dump-tf MODEL --train-op NAME`: one training step of a checkpoint the test makes (conv,
batch norm, dense, dropout, softmax cross-entropy; SGD on reference variables, Adam on resource
variables), its golden files checked bit for bit against tfdbg's dump of the same step read by
TensorFlow's own DebugDumpDir: the same seeds, one thread, op determinism on (both runs in a
process of their own with TF_DETERMINISTIC_OPS=1). Runs in the venv tools/tf_env.py builds (.ci/run)."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.support.tf_required import tensorflow_or_skip

tf = tensorflow_or_skip()
pytestmark = pytest.mark.tf

from tensorflow.python.debug.lib import debug_data  # noqa: E402

from opdiff.cli import main  # noqa: E402
from opdiff.conventions.dump_names import escape_op_name  # noqa: E402
from opdiff.dumps.discovery import FileKind, index_folder  # noqa: E402
from tests.support.child_env import with_checkout_on_path  # noqa: E402
from tests.support.tf_training import save_checkpoint, save_saved_model, training_inputs  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DETERMINISTIC = {**with_checkout_on_path(str(ROOT)), "TF_DETERMINISTIC_OPS": "1"}


def run_deterministic(*args):
    done = subprocess.run([sys.executable, *args], env=DETERMINISTIC, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]


def dump_step(model, inputs, out, *extra):
    run_deterministic("-m", "opdiff", "dump-tf", str(model), "--train-op", "train", "-j", "1", "-o", str(out),
                      *(f"--input={path.stem}={path}" for path in sorted(inputs.glob("*.npy"))), *extra)
    return out


def digests(folder):
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in folder.iterdir() if path.is_file()}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inputs")
    for name, value in training_inputs().items():
        np.save(folder / f"{name}.npy", value)
    return folder


@pytest.fixture(scope="module", params=["sgd", "adam"])
def step(request, inputs, tmp_path_factory):
    """(checkpoint .meta, its digests before the step, dump-tf's folder, tfdbg's run folder)."""
    base = tmp_path_factory.mktemp(request.param)
    (base / "ckpt").mkdir()
    meta = save_checkpoint(request.param, base / "ckpt")
    before = digests(base / "ckpt")
    out = dump_step(meta, inputs, base / "golden")
    run_deterministic("-m", "tests.support.tf_training_tfdbg", str(meta), str(inputs), str(out / "manifest.json"), str(base / "tfdbg"))
    (run,) = sorted((base / "tfdbg").glob("run_*"))
    return meta, before, out, run


def golden_by_name(folder):
    """Golden files by ``{op}.{index}`` -> array."""
    index = index_folder(folder / "golden")
    assert index.kind is FileKind.GOLDEN
    return {key: np.load(index.newest(key).path) for key in index.files}


def tfdbg_tensors(run, placeholders):
    """tfdbg's tensors by golden name (a fed Placeholder x, dumped as ``_arg_x_0_k``, as x) -> value;
    and the names of those it holds no array for (resource handles)."""
    values, handles = {}, set()
    for datum in debug_data.DebugDumpDir(str(run)).dumped_tensor_data:
        node = next((name for name in placeholders if datum.node_name.startswith(f"_arg_{name}_0_")), datum.node_name)
        value = datum.get_tensor()
        if isinstance(value, np.ndarray):
            values[f"{escape_op_name(node)}.{datum.output_slot}"] = value
        else:
            handles.add(node)
    return values, handles


def test_every_golden_file_is_tfdbgs_tensor_bit_for_bit(step, inputs):
    _, _, out, run = step
    golden = golden_by_name(out)
    reference, handles = tfdbg_tensors(run, {path.stem for path in inputs.glob("*.npy")})
    assert set(golden) == set(reference)
    differ = [name for name, value in reference.items()
              if golden[name].dtype != value.dtype or golden[name].shape != value.shape or golden[name].tobytes() != value.tobytes()]
    assert not differ
    not_fetched = json.loads((out / "manifest.json").read_text())["not_fetched"]
    assert {item["op"] for item in not_fetched if "handle" in item["reason"]} == handles


def test_the_step_covers_forward_backward_updates_and_reads(step):
    meta, _, out, _ = step
    golden = golden_by_name(out)
    meta_graph = tf.compat.v1.MetaGraphDef()
    meta_graph.ParseFromString((out / "model.meta").read_bytes())
    types = {escape_op_name(node.name): node.op for node in meta_graph.graph_def.node}
    written = {types[key.rsplit(".", 1)[0]] for key in golden if key.rsplit(".", 1)[0] in types}
    assert {"Conv2D", "FusedBatchNormV3", "MatMul", "SoftmaxCrossEntropyWithLogits", "Conv2DBackpropFilter",
            "FusedBatchNormGradV3", "RandomUniform"} <= written
    assert any(key.startswith("gradients_") for key in golden)
    if "adam" in str(meta):
        assert "ReadVariableOp" in written
        no_outputs = {item["op"] for item in json.loads((out / "manifest.json").read_text())["not_fetched"] if item["output"] is None}
        assert {"train/update_conv/w/ResourceApplyAdam", "train"} <= no_outputs
    else:
        assert {"VariableV2", "Identity", "ApplyGradientDescent"} <= written


def test_variables_read_before_the_update_and_updated_after_it(step):
    """The forward pass's reads of a variable hold the checkpoint's value; SGD's update op, the value after the step."""
    meta, _, out, _ = step
    golden = golden_by_name(out)
    saved = tf.train.load_variable(str(meta.with_suffix("")), "fc2/w")
    meta_graph = tf.compat.v1.MetaGraphDef()
    meta_graph.ParseFromString((out / "model.meta").read_bytes())
    reads = [node.name for node in meta_graph.graph_def.node if node.op in ("Identity", "ReadVariableOp", "VariableV2")
             and (node.name == "fc2/w" or list(node.input) == ["fc2/w"]) and f"{escape_op_name(node.name)}.0" in golden
             and not node.name.startswith("train/")]
    assert reads and all(np.array_equal(golden[f"{escape_op_name(name)}.0"], saved) for name in reads)
    if "sgd" in str(meta):
        assert not np.array_equal(golden["train_update_fc2_w_ApplyGradientDescent.0"], saved)


def test_the_checkpoint_is_left_unchanged_and_the_layout_is_dump_tfs(step):
    meta, before, out, _ = step
    assert digests(meta.parent) == before
    assert {path.name for path in out.iterdir()} == {"golden", "inputs", "manifest.json", "model.meta"}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["train_op"] == "train" and manifest["kind"] == "golden" and manifest["session_runs"] == 1
    assert {path.name for path in (out / "inputs").iterdir()} == {"x.npy", "labels.npy"}


def test_a_saved_model_gives_the_checkpoints_step(step, inputs, tmp_path):
    """The same network saved as a SavedModel (tag "train"): the same variables and seeds, the same tensors."""
    meta, _, out, _ = step
    saved = save_saved_model(meta.parent.parent.name.rstrip("0123456789"), tmp_path / "saved")
    golden = golden_by_name(dump_step(saved, inputs, tmp_path / "golden"))
    reference = golden_by_name(out)
    common = [key for key in reference if not key.startswith("save")]
    assert len(common) > 150 and all(np.array_equal(golden[key], reference[key]) for key in common)


class Given:
    """A dumped input for TfSource.local_golden: its value."""

    def __init__(self, value):
        self.value = value

    def to_numpy(self):
        return self.value


def test_isolate_reruns_an_op_of_the_meta_graph_it_ran(step):
    """--isolate reads DIR/model.meta: an op fed its inputs from the step gives the step's output."""
    from opdiff.isolate.tf_source import load_tf_source

    _, _, out, _ = step
    golden = golden_by_name(out)
    source = load_tf_source(out / "model.meta", threads=1)
    inputs = source.node_inputs("logits")
    feeds = {tensor: Given(golden[f"{escape_op_name(tensor.rpartition(':')[0])}.0"]) for tensor in inputs}
    (value,) = source.local_golden(("logits",), feeds, ["logits:0"]).values()
    assert value.tobytes() == golden["logits.0"].tobytes()


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    return save_checkpoint("sgd", tmp_path_factory.mktemp("bad"))


def bad_run(capsys, *args):
    code = main(["dump-tf", *map(str, args)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    return err


def test_a_missing_checkpoint_file_is_named(checkpoint, inputs, tmp_path, capsys):
    for suffix in (".index", ".data-00000-of-00001"):
        copy = tmp_path / suffix.strip(".")
        copy.mkdir()
        for path in checkpoint.parent.iterdir():
            if not path.name.endswith(suffix):
                (copy / path.name).write_bytes(path.read_bytes())
        assert "model.ckpt" + suffix.split("-")[0] in bad_run(capsys, copy / "model.ckpt.meta", "--train-op", "train", "--random-inputs", "0",
                                                              "-o", tmp_path / "out")
    assert "no_such.meta" in bad_run(capsys, tmp_path / "no_such.meta", "--train-op", "train", "-o", tmp_path / "out")


def test_an_unknown_train_op_or_a_missing_input_is_named(checkpoint, inputs, tmp_path, capsys):
    assert "--train-op trian" in bad_run(capsys, checkpoint, "--train-op", "trian", "--random-inputs", "0", "-o", tmp_path / "out")
    assert "nothere.npy" in bad_run(capsys, checkpoint, "--train-op", "train", "--input", f"x={tmp_path / 'nothere.npy'}", "-o", tmp_path / "out")
    assert "labels" in bad_run(capsys, checkpoint, "--train-op", "train", "--input", f"x={inputs / 'x.npy'}", "-o", tmp_path / "out")


def test_a_training_model_needs_its_files_and_the_train_op(checkpoint, tmp_path, capsys):
    (tmp_path / "empty_saved_model").mkdir()
    assert "saved_model.pb: no such file" in bad_run(capsys, tmp_path / "empty_saved_model", "--train-op", "train", "-o", tmp_path / "out")
    assert "give --train-op" in bad_run(capsys, checkpoint, "--random-inputs", "0", "-o", tmp_path / "out")
    frozen = tmp_path / "frozen.pb"
    frozen.write_bytes(b"")
    assert "a checkpoint's .meta file or a SavedModel folder" in bad_run(capsys, frozen, "--train-op", "train", "-o", tmp_path / "out")

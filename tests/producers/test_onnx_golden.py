"""opdiff.producers golden runs: file names, escaping, inputs, values against numpy."""

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx  # ONNX Runtime runs here: not a core-facing test (.ci/run's sanitizer pass skips it)

from opdiff.conventions.dump_names import parse_golden_name  # noqa: E402
from opdiff.dumps.discovery import FileKind, index_folder  # noqa: E402
from opdiff.producers import DumpOptions, OutputKind, dump_onnx  # noqa: E402
from opdiff.producers.model_inputs import InputSpec, input_specs, load_inputs, random_inputs  # noqa: E402
from opdiff.producers.onnx.model_prep import prepare_model  # noqa: E402
from tests.support.onnx_models import IR_VERSION, OPSET, conv_bn_relu_model, mlp_model, mlp_reference  # noqa: E402

EXPECTED_KEYS = {
    "in_x.0": "in/x",  # the input, as output 0 of its Data op
    "fc_mat_mul.0": "mm",
    "in_x_1.0": "biased",  # renamed: "in_x" is the input's golden name
    "Relu_2.0": "act",  # unnamed node
    "split__1.0": "left",  # "::" cannot be in a file name
    "split__1.1": "right",
    "mul.0": "prod",
    "softmax.0": "prob",
}


def run_mlp(tmp_path, **kwargs):
    model, w, b = mlp_model()
    x = np.random.default_rng(5).standard_normal((2, 4)).astype(np.float32)
    result = dump_onnx(model, tmp_path / "out", {"in/x": x}, **kwargs)
    return result, x, w, b


def test_golden_files_are_named_by_op_and_output_index_with_one_timestamp(tmp_path):
    result, _, _, _ = run_mlp(tmp_path)
    assert result.kind is OutputKind.GOLDEN
    names = [parse_golden_name(p) for p in result.tensor_folder.iterdir()]
    assert all(n is not None for n in names), sorted(p.name for p in result.tensor_folder.iterdir())
    assert {n.key for n in names} == set(EXPECTED_KEYS)
    assert {n.timestamp for n in names} == {result.timestamp}
    assert len(str(result.timestamp)) == 16
    index = index_folder(result.tensor_folder)
    assert index.kind is FileKind.GOLDEN and not index.skipped


def test_golden_values_match_numpy(tmp_path):
    result, x, w, b = run_mlp(tmp_path)
    reference = mlp_reference(x, w, b)
    reference["in/x"] = x
    index = index_folder(result.tensor_folder)
    for key, tensor in EXPECTED_KEYS.items():
        value = np.load(index.newest(key).path)
        assert value.dtype == np.float32
        np.testing.assert_allclose(value, reference[tensor], rtol=1e-5, atol=1e-6, err_msg=key)
    np.testing.assert_array_equal(np.load(index.newest("in_x.0").path), x)  # inputs bit for bit


def test_inputs_are_saved_for_reuse_and_manifest_written(tmp_path):
    result, x, _, _ = run_mlp(tmp_path)
    np.testing.assert_array_equal(np.load(result.folder / "inputs" / "in_x.npy"), x)
    assert (result.folder / "manifest.json").is_file()
    assert not list(result.folder.rglob(".opdiff-*"))  # no temporary left


def test_prepare_model_renames_unnamed_unsafe_and_colliding_nodes():
    model, _, _ = mlp_model()
    prepared = prepare_model(model)
    assert [n.name for n in prepared.model.graph.node] == ["fc/mat.mul", "in_x_1", "Relu_2", "split__1", "mul", "softmax"]
    assert {(r.old, r.new) for r in prepared.renames} == {("in_x", "in_x_1"), ("", "Relu_2"), ("split::1", "split__1")}
    assert [n.name for n in prepare_model(prepared.model).model.graph.node] == [n.name for n in prepared.model.graph.node]


def test_random_inputs_are_seeded_and_dynamic_dims_become_one(tmp_path):
    model, _, _ = mlp_model()
    specs = input_specs(model)
    assert specs == [InputSpec("in/x", np.dtype(np.float32), (1, 4), ("batch",))]
    feeds, notes = load_inputs(specs, {}, seed=3)
    again, _ = load_inputs(specs, {}, seed=3)
    np.testing.assert_array_equal(feeds["in/x"], again["in/x"])
    assert not np.array_equal(feeds["in/x"], random_inputs(specs, 4)["in/x"])
    assert notes == ["input in/x: dynamic dims batch set to 1"]


def test_input_files_are_used_and_checked(tmp_path):
    model, _, _ = mlp_model()
    specs = input_specs(model)
    path = tmp_path / "x.npy"
    np.save(path, np.ones((3, 4), np.float64))
    feeds, notes = load_inputs(specs, {"in/x": path}, seed=None)
    assert feeds["in/x"].dtype == np.float32 and feeds["in/x"].shape == (3, 4)
    assert "float64 converted to float32" in notes[0]
    with pytest.raises(ValueError, match="names no model input"):
        load_inputs(specs, {"y": path}, seed=None)
    with pytest.raises(ValueError, match="--random-inputs"):
        load_inputs(specs, {}, seed=None)


def test_long_names_go_through_mapping_csv(tmp_path):
    from onnx import TensorProto, helper

    long_name = "block/" + "very_long_layer_name_" * 14
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name=long_name)], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    result = dump_onnx(helper.make_model(graph, opset_imports=OPSET, ir_version=IR_VERSION), tmp_path, {"x": np.array([-1, 0, 2], np.float32)})
    assert (result.tensor_folder / "mapping.csv").is_file()
    index = index_folder(result.tensor_folder)
    key = long_name.replace("/", "_") + ".0"
    assert np.load(index.newest(key).path).tolist() == [0, 0, 2]


def test_golden_run_keeps_every_original_op(tmp_path):
    # Optimisation is off by default: the Conv, BatchNormalization and Relu outputs all exist.
    x = np.random.default_rng(0).standard_normal((1, 3, 8, 8)).astype(np.float32)
    result = dump_onnx(conv_bn_relu_model(), tmp_path, {"x": x}, DumpOptions())
    assert set(index_folder(result.tensor_folder).files) == {"x.0", "conv.0", "bn.0", "relu.0", "gap.0"}

"""opdiff.producers device runs: fusion-on and fp16 dump files, and the recovered fusion rule."""

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx  # ONNX Runtime runs here: not a core-facing test (.ci/run's sanitizer pass skips it)

import opdiff  # noqa: E402
from opdiff.conventions.dump_names import escape_op_name  # noqa: E402
from opdiff.dumps.discovery import FileKind, index_folder  # noqa: E402
from opdiff.graph import Relation  # noqa: E402
from opdiff.producers import DeviceLayout, DumpOptions, OutputKind, Precision, dump_onnx  # noqa: E402
from tests.support.onnx_models import conv_bn_relu_model, mlp_model  # noqa: E402

X = np.random.default_rng(0).standard_normal((1, 3, 8, 8)).astype(np.float32)


@pytest.fixture(scope="module")
def cbr_runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cbr")
    model = conv_bn_relu_model()
    golden = dump_onnx(model, folder / "golden", {"x": X})
    fused = dump_onnx(model, folder / "fused", {"x": X}, DumpOptions(fusion=True))
    return golden, fused


def dump_of(result, op_name):
    index = index_folder(result.tensor_folder)
    return opdiff.read_dump(index.newest(escape_op_name(op_name)).path)


def test_fusion_on_writes_one_dump_per_optimised_node(cbr_runs):
    _, fused = cbr_runs
    assert fused.kind is OutputKind.DEVICE
    index = index_folder(fused.tensor_folder)
    assert index.kind is FileKind.NPU and not index.skipped
    types = {name.op_type for versions in index.files.values() for name in versions}
    assert types == {"FusedConv", "GlobalAveragePool"}
    # time order is execution order
    assert index.keys_in_time_order()[-1] == "gap"


def test_fused_node_dump_holds_inputs_outputs_and_golden_values(cbr_runs):
    golden, fused = cbr_runs
    fm = opdiff.read_graph(fused.fusion_rule)
    fused_op = next(op for op in fm.ops if op.type == "FusedConv")
    dump = dump_of(fused, fused_op.name)
    assert dump.op_name == fused_op.name
    assert [t.dtype for t in dump.inputs] == ["float32"] * 3  # x, folded weight, folded bias
    assert len(dump.outputs) == 1 and dump.outputs[0].dtype == "float32"
    relu = np.load(index_folder(golden.tensor_folder).newest("relu.0").path)
    np.testing.assert_allclose(dump.outputs[0].to_numpy(), relu, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(dump.inputs[0].to_numpy(), X)


def test_recovered_fusion_rule_maps_the_fused_node_to_conv_bn_relu(cbr_runs):
    golden, fused = cbr_runs
    fm = opdiff.read_graph(fused.fusion_rule)
    fused_op = next(op for op in fm.ops if op.type == "FusedConv")
    assert fused_op.original_names == ("conv", "bn", "relu")
    assert fm.group_of(fused_op.name).relation is Relation.MULTI_TO_ONE
    desc = fused_op.output_descs[0]
    assert (desc.origin_name, desc.origin_output_index, desc.origin_format, desc.origin_shape, desc.dtype) == ("relu", 0, "NCHW", (1, 8, 8, 8), "DT_FLOAT")
    data = fm.data_ops
    assert [op.name for op in data] == ["x"] and data[0].output_descs[0].origin_name == "x"
    assert fm.producer(fused_op.inputs[0]).name == "x"
    assert [fm.producer(ref).type for ref in fused_op.inputs[1:]] == ["Const", "Const"]
    assert fm.op("gap").inputs[0].producer == fused_op.name
    assert fused.mapped_share == 1.0
    golden_ops = {key.rsplit(".", 1)[0] for key in index_folder(golden.tensor_folder).files}
    for op in fm.ops:
        if op.type != "Const":
            assert {escape_op_name(n) for n in op.original_names} <= golden_ops, op.name
            for desc in op.output_descs:
                assert f"{escape_op_name(desc.origin_name)}.{desc.origin_output_index}" in index_folder(golden.tensor_folder).files


def test_fp16_run_writes_fp16_tensors_close_to_golden(tmp_path):
    model = conv_bn_relu_model()
    golden = dump_onnx(model, tmp_path / "g", {"x": X})
    half = dump_onnx(model, tmp_path / "h", {"x": X}, DumpOptions(precision=Precision.FP16))
    fm = opdiff.read_graph(half.fusion_rule)
    cast = fm.op("x_to_fp16")
    assert cast.type == "Cast" and cast.output_descs[0].origin_name == "x"  # passes the input through
    assert cast.original_names == ("",)  # a group of its own, as a compiler's Cast
    golden_index = index_folder(golden.tensor_folder)
    for name in ("conv", "bn", "relu", "gap"):
        dump = dump_of(half, name)
        assert [t.dtype for t in dump.outputs] == ["float16"]
        assert fm.op(name).output_descs[0].dtype == "DT_FLOAT16"
        expected = np.load(golden_index.newest(f"{name}.0").path)
        got = dump.outputs[0].to_numpy()
        assert opdiff.metrics(got, expected).cosine_similarity > 0.9999
        assert not np.array_equal(got.astype(np.float32), expected)  # really rounded to fp16
    assert dump_of(half, "conv").inputs[1].dtype == "float16"  # weights too


def test_fp16_with_fusion_keeps_fp16_between_fused_nodes(tmp_path):
    half = dump_onnx(conv_bn_relu_model(), tmp_path, {"x": X}, DumpOptions(fusion=True, precision=Precision.FP16))
    fm = opdiff.read_graph(half.fusion_rule)
    fused_op = next(op for op in fm.ops if op.type == "FusedConv")
    assert fused_op.original_names == ("conv", "bn", "relu")
    assert dump_of(half, fused_op.name).outputs[0].dtype == "float16"
    assert half.mapped_share == 1.0


def test_nc1hwc0_layout_round_trips(tmp_path):
    nd = dump_onnx(conv_bn_relu_model(), tmp_path / "nd", {"x": X}, DumpOptions(kind=OutputKind.DEVICE))
    five_d = dump_onnx(conv_bn_relu_model(), tmp_path / "5d", {"x": X}, DumpOptions(kind=OutputKind.DEVICE, layout=DeviceLayout.NC1HWC0))
    stored = dump_of(five_d, "conv").outputs[0]
    assert stored.format_name == "NC1HWC0" and stored.shape == (1, 1, 8, 8, 16)
    np.testing.assert_array_equal(stored.to_numpy(), dump_of(nd, "conv").outputs[0].to_numpy())


def test_kept_fp32_op_gets_casts_and_keeps_its_golden_name(tmp_path):
    model, _, _ = mlp_model()
    x = np.ones((2, 4), np.float32)
    result = dump_onnx(model, tmp_path, {"in/x": x}, DumpOptions(precision=Precision.FP16, keep_fp32=("Softmax",)))
    fm = opdiff.read_graph(result.fusion_rule)
    assert fm.op("softmax").output_descs[0].dtype == "DT_FLOAT"
    assert fm.op("softmax").original_names == ("softmax",)
    back = fm.op("softmax_output0_to_fp16")
    assert back.type == "Cast" and back.output_descs[0].origin_name == "softmax"
    assert dump_of(result, "softmax").outputs[0].dtype == "float32"
    assert "node softmax kept in fp32" in result.notes


def test_injected_fault_breaks_only_the_faulty_op(tmp_path):
    from opdiff.producers.onnx.fault_injection import parse_fault

    golden = dump_onnx(conv_bn_relu_model(), tmp_path / "g", {"x": X})
    faulty = dump_onnx(conv_bn_relu_model(), tmp_path / "f", {"x": X}, DumpOptions(precision=Precision.FP16, faults=(parse_fault("conv=3"),)))
    assert "fault injected: node conv weights x3 (a quarter of the output channels)" in faulty.notes
    gold = index_folder(golden.tensor_folder)
    conv = dump_of(faulty, "conv")
    assert opdiff.metrics(conv.inputs[0].to_numpy(), np.load(gold.newest("x.0").path)).cosine_similarity > 0.9999
    assert opdiff.metrics(conv.outputs[0].to_numpy(), np.load(gold.newest("conv.0").path)).cosine_similarity < 0.99
    with pytest.raises(ValueError, match="no node 'nope'"):
        dump_onnx(conv_bn_relu_model(), tmp_path / "n", {"x": X}, DumpOptions(faults=(("nope", 2.0),)))

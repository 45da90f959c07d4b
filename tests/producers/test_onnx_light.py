"""A light real network (resnet50 of the onnx package) with seeded weights: golden, fusion-on and
fp16 runs, and the recovered fusion rule's mapping to the golden tensors."""

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx  # ONNX Runtime runs here: not a core-facing test (.ci/run's sanitizer pass skips it)

import opdiff  # noqa: E402
from opdiff.conventions.dump_names import escape_op_name  # noqa: E402
from opdiff.dumps.discovery import index_folder  # noqa: E402
from opdiff.producers import DumpOptions, Precision, dump_onnx  # noqa: E402
from opdiff.producers.model_inputs import input_specs, random_inputs  # noqa: E402
from opdiff.producers.onnx.light_models import light_model_names, load_light_model  # noqa: E402
from opdiff.producers.onnx.random_weights import WeightRole, randomize_weights  # noqa: E402

if "resnet50" not in light_model_names():
    pytest.skip("this onnx wheel ships no light_resnet50.onnx", allow_module_level=True)


@pytest.fixture(scope="module")
def resnet(tmp_path_factory):
    folder = tmp_path_factory.mktemp("resnet50")
    model = randomize_weights(load_light_model("resnet50"), seed=0).model
    feeds = random_inputs(input_specs(model), seed=0)
    golden = dump_onnx(model, folder / "golden", feeds, name="resnet50")
    fused = dump_onnx(model, folder / "fused", feeds, DumpOptions(fusion=True), name="resnet50")
    half = dump_onnx(model, folder / "fp16", feeds, DumpOptions(fusion=True, precision=Precision.FP16), name="resnet50")
    return golden, fused, half


def golden_keys(golden):
    return set(index_folder(golden.tensor_folder).files)


@pytest.mark.parametrize("which", [1, 2], ids=["fusion", "fusion+fp16"])
def test_fused_graph_maps_to_golden(resnet, which):
    golden, device = resnet[0], resnet[which]
    keys = golden_keys(golden)
    golden_ops = {key.rsplit(".", 1)[0] for key in keys}
    fm = opdiff.read_graph(device.fusion_rule)
    assert fm.name == "resnet50"
    fused = [op for op in fm.ops if len(op.original_names) > 1]
    assert len(fused) >= 50  # every Conv took its BatchNormalization, most their Relu too
    tensors = mapped = 0
    for op in fm.ops:
        if op.type == "Const":
            continue
        assert {escape_op_name(n) for n in op.original_names if n} <= golden_ops, op.name
        for desc in op.output_descs:
            tensors += 1
            mapped += f"{escape_op_name(desc.origin_name)}.{desc.origin_output_index}" in keys
    assert mapped / tensors >= 0.95
    assert device.mapped_share >= 0.95
    # every original op is accounted for: kept, fused, or folded into a constant
    covered = {name for op in fm.ops for name in op.original_names}
    original = {key.rsplit(".", 1)[0] for key in keys}
    assert len(original - {escape_op_name(c) for c in covered}) == 0


def test_device_outputs_match_golden(resnet):
    golden, fused, half = resnet
    gold = index_folder(golden.tensor_folder)
    largest = max(float(np.abs(np.load(p)).max()) for p in golden.tensor_folder.glob("*.npy"))
    assert 1 < largest < 100  # seeded weights keep activations sane (fp16 holds up to 65504)
    for device, dtype, floor in ((fused, "float32", 0.99999), (half, "float16", 0.999)):
        fm = opdiff.read_graph(device.fusion_rule)
        index = index_folder(device.tensor_folder)
        by_key = {escape_op_name(op.name): op for op in fm.ops}
        worst = 1.0
        for key in index.files:
            dump = opdiff.read_dump(index.newest(key).path)
            for k, tensor in enumerate(dump.outputs):
                desc = by_key[key].output_descs[k]
                assert tensor.dtype == dtype or by_key[key].type in ("Reshape",)
                reference = np.load(gold.newest(f"{escape_op_name(desc.origin_name)}.{desc.origin_output_index}").path)
                worst = min(worst, opdiff.metrics(tensor.to_numpy(), reference).cosine_similarity)
        assert worst > floor, (dtype, worst)


def test_randomized_weights_are_seeded_and_replace_every_constant():
    model = load_light_model("resnet50")
    first = randomize_weights(model, seed=7)
    second = randomize_weights(model, seed=7)
    assert first.model.SerializeToString() == second.model.SerializeToString()
    assert randomize_weights(model, seed=8).model.SerializeToString() != first.model.SerializeToString()
    assert not [n for n in first.model.graph.node if n.op_type == "ConstantOfShape"]
    assert first.counts[WeightRole.DENSE] == 54 and first.counts[WeightRole.VARIANCE] == 53
    assert first.counts[WeightRole.BRANCH_SCALE] == 20  # 16 residual joins, 4 of them with a projection shortcut
    from onnx import numpy_helper

    weights = {i.name: numpy_helper.to_array(i) for i in first.model.graph.initializer}
    conv1 = weights["gpu_0/conv1_w_0"]  # 64 x 3 x 7 x 7: He std sqrt(2 / 147)
    assert abs(conv1.std() - np.sqrt(2 / 147)) < 0.01
    assert (weights["gpu_0/res_conv1_bn_riv_0"] >= 1).all()

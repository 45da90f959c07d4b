"""The quantized scenario: a QDQ int8 copy of a float model, run as the device side, mapped to the
float model's golden tensors."""

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime.quantization")
pytestmark = pytest.mark.onnx  # ONNX Runtime runs here: not a core-facing test (.ci/run's sanitizer pass skips it)

import opdiff  # noqa: E402
from opdiff.conventions.dump_names import escape_op_name  # noqa: E402
from opdiff.dumps.discovery import index_folder  # noqa: E402
from opdiff.producers import DumpOptions, OutputKind, dump_onnx  # noqa: E402
from opdiff.producers.model_inputs import input_specs, random_inputs  # noqa: E402
from opdiff.producers.qdq.model import EVERY_OP_TYPE, quantize_qdq  # noqa: E402
from tests.support.onnx_models import conv_bn_relu_model  # noqa: E402


@pytest.fixture(scope="module")
def quantized(tmp_path_factory):
    folder = tmp_path_factory.mktemp("qdq")
    model = conv_bn_relu_model(channels=16)
    specs = input_specs(model)
    # every op type ONNX Runtime quantizes: these tests follow its QDQ pairs through BN, Relu, Add
    qdq = quantize_qdq(model, [random_inputs(specs, seed) for seed in range(8)], op_types=EVERY_OP_TYPE)
    feeds = random_inputs(specs, seed=0)
    golden = dump_onnx(model, folder / "golden", feeds)
    device = dump_onnx(qdq, folder / "qdq", feeds, DumpOptions(kind=OutputKind.DEVICE), reference=model)
    return qdq, golden, device


def test_quantized_model_has_int8_qdq_pairs_and_keeps_op_names(quantized):
    qdq, _, _ = quantized
    types = [n.op_type for n in qdq.graph.node]
    assert "QuantizeLinear" in types and "DequantizeLinear" in types
    assert {"conv", "bn", "relu", "gap"} <= {n.name for n in qdq.graph.node}
    from onnx import TensorProto

    assert any(i.data_type == TensorProto.INT8 for i in qdq.graph.initializer)  # int8 weights


def test_quantized_run_maps_to_float_golden(quantized):
    _, golden, device = quantized
    fm = opdiff.read_graph(device.fusion_rule)
    gold = index_folder(golden.tensor_folder)
    dumps = index_folder(device.tensor_folder)
    assert fm.op("conv").original_names == ("conv",)
    # the quantizer renames the graph output: gap writes a new tensor, the last DequantizeLinear writes "y"
    assert fm.op("gap").original_names == ("gap",) and fm.op("gap").output_descs[0].origin_name == "gap"
    last = fm.op("y_DequantizeLinear")
    assert last.output_descs[0].origin_name == "gap" and last.original_names == ("",)
    for op in fm.ops:
        if op.type == "QuantizeLinear":
            # int8 codes: compared with nothing
            assert dumps.newest(escape_op_name(op.name)) is not None
            assert all(desc.origin_name == "" for desc in op.output_descs)
            assert opdiff.read_dump(dumps.newest(escape_op_name(op.name)).path).outputs[0].dtype == "int8"
    # the DequantizeLinear of the Relu's quantized output stands for the Relu's output
    dq = [op for op in fm.ops if op.type == "DequantizeLinear" and fm.producer(op.inputs[0]).type == "QuantizeLinear"
          and fm.producer(fm.producer(op.inputs[0]).inputs[0]).name == "relu"]
    assert len(dq) == 1 and dq[0].output_descs[0].origin_name == "relu"
    value = opdiff.read_dump(dumps.newest(escape_op_name(dq[0].name)).path).outputs[0].to_numpy()
    reference = np.load(gold.newest("relu.0").path)
    m = opdiff.metrics(value, reference)
    assert 0.99 < m.cosine_similarity < 1.0  # int8 rounding: close, not equal
    assert m.max_absolute_error > 0


def test_mapped_share_counts_activations_and_leaves_int8_codes_unmapped(quantized):
    qdq, _, device = quantized
    activations = 1 + sum(1 for n in qdq.graph.node if n.op_type != "DequantizeLinear" or not n.input[0].endswith("_quantized"))
    quantize_outputs = sum(1 for n in qdq.graph.node if n.op_type == "QuantizeLinear")
    assert quantize_outputs > 0
    assert device.mapped_share == pytest.approx(1 - quantize_outputs / activations)


def test_a_relu_input_quantized_with_the_relu_range_stands_for_the_relu_output(quantized):
    # ONNX Runtime quantizes bn's output with relu's range (zero point -128): its dequantized value
    # is relu(bn), so it maps to relu's golden, not to bn's (where it would lose every negative)
    _, golden, device = quantized
    fm = opdiff.read_graph(device.fusion_rule)
    dq = fm.producer(fm.op("relu").inputs[0])
    assert dq.type == "DequantizeLinear" and dq.output_descs[0].origin_name == "relu"
    value = opdiff.read_dump(index_folder(device.tensor_folder).newest(escape_op_name(dq.name)).path).outputs[0].to_numpy()
    assert value.min() >= 0
    assert opdiff.metrics(value, np.load(index_folder(golden.tensor_folder).newest("relu.0").path)).cosine_similarity > 0.99

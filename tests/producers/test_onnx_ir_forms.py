"""dump-onnx on both IR forms of the onnx wheel's light models: IR 3, whose initializers are also
graph inputs (ONNX Runtime then wants each such input typed as its initializer: an fp16 copy that
left them fp32 failed with "Tensor element type mismatch. 10 != 1"), and the current IR."""

import json

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx  # ONNX Runtime runs here: not a core-facing test (.ci/run's sanitizer pass skips it)

import opdiff  # noqa: E402
from opdiff.cli import main  # noqa: E402
from opdiff.conventions.dump_names import escape_op_name  # noqa: E402
from opdiff.dumps.discovery import index_folder  # noqa: E402
from opdiff.producers import DumpOptions, OutputKind, Precision, dump_onnx  # noqa: E402
from opdiff.producers.file_names import file_safe_name  # noqa: E402
from opdiff.producers.model_inputs import input_specs, random_inputs  # noqa: E402
from opdiff.producers.onnx.light_models import light_model_names  # noqa: E402
from opdiff.producers.onnx.model_prep import prepare_model  # noqa: E402
from tests.support.ir_forms import IrForm, light_model_in_form  # noqa: E402

MODELS = light_model_names()
if not MODELS:
    pytest.skip("this onnx wheel ships no light models", allow_module_level=True)


def fp32_outputs(model, feeds):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [output.name for output in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds)))


def dumped_output(run_folder, model, tensor):
    """The value the device run wrote for the original graph's tensor `tensor`: the output of the
    last op (execution order) whose output desc stands for it, read from that op's dump file."""
    producer = next(node for node in prepare_model(model).model.graph.node if tensor in node.output)
    index = [t for t in producer.output if t].index(tensor)
    rule = opdiff.read_graph(run_folder / "fusion_rule.json")
    dumps = index_folder(run_folder / "dump")
    for name in reversed(rule.execution_order):
        op = rule.op(name)
        for k, desc in enumerate(op.output_descs):
            found = dumps.newest(escape_op_name(op.name))
            if desc.origin_name == producer.name and desc.origin_output_index == index and found is not None:
                return opdiff.read_dump(found.path).outputs[k]
    raise AssertionError(f"no dumped op stands for {tensor}")


@pytest.mark.slow
@pytest.mark.parametrize("name", MODELS)
def test_fp16_run_of_every_light_model_in_its_ir3_form(tmp_path, capsys, name):
    model = light_model_in_form(name, IrForm.IR3)
    assert model.ir_version == 3
    assert {init.name for init in model.graph.initializer} <= {value.name for value in model.graph.input}
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, str(path))
    out = tmp_path / "fp16"
    assert main(["dump-onnx", str(path), "--dtype", "fp16", "--random-inputs", "0", "-o", str(out)]) == 0, capsys.readouterr().err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["mapped_share"] >= 0.95
    # the values the run used, saved under file-safe names ("gpu_0/data_0" as gpu_0_data_0.npy)
    feeds = {spec.name: np.load(out / "inputs" / f"{file_safe_name(spec.name).replace('/', '_')}.npy") for spec in input_specs(model)}
    for tensor, reference in fp32_outputs(model, feeds).items():
        value = dumped_output(out, model, tensor)
        assert value.dtype == "float16"
        assert opdiff.metrics(value.to_numpy(), reference).cosine_similarity > 0.999, tensor


@pytest.mark.parametrize("form", list(IrForm), ids=[f.value for f in IrForm])
@pytest.mark.parametrize("precision", list(Precision), ids=[p.value for p in Precision])
@pytest.mark.parametrize("fusion", [False, True], ids=["fusion-off", "fusion-on"])
def test_every_run_kind_on_both_ir_forms(tmp_path, form, precision, fusion):
    model = light_model_in_form("squeezenet", form)
    feeds = random_inputs(input_specs(model), seed=0)
    golden = dump_onnx(model, tmp_path / "golden", feeds, name="squeezenet")
    device = dump_onnx(model, tmp_path / "device", feeds, DumpOptions(fusion=fusion, precision=precision, kind=OutputKind.DEVICE), name="squeezenet")
    assert device.mapped_share == 1.0
    report = opdiff.compare(device.tensor_folder, golden.tensor_folder, fusion_rule=device.fusion_rule)
    outputs = [row for row in report.rows if ":output:" in row.tensor_index]
    assert outputs and all(row.compared for row in outputs)
    floor = 0.99999 if precision is Precision.FP32 else 0.999
    assert min(row.metrics.cosine_similarity for row in outputs) > floor


def test_ir3_inputs_of_converted_weights_are_retyped():
    from opdiff.producers.onnx.fp16_model import convert_to_fp16

    model = light_model_in_form("squeezenet", IrForm.IR3)
    half = convert_to_fp16(model).model
    types = {init.name: init.data_type for init in half.graph.initializer}
    declared = {value.name: value.type.tensor_type.elem_type for value in half.graph.input if value.name in types}
    assert declared == types and onnx.TensorProto.FLOAT16 in declared.values()

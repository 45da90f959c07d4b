"""Real networks end to end: ONNX Runtime runs of a light model compared with opdiff compare, and a
fault injected into one op of the fp16 run found by the advisor."""

import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx  # ONNX Runtime runs here: not a core-facing test (.ci/run's sanitizer pass skips it)

import opdiff  # noqa: E402
from opdiff.advisor.tensor_advisor import advise  # noqa: E402
from opdiff.producers import DumpOptions, OutputKind, Precision, dump_onnx  # noqa: E402
from opdiff.producers.model_inputs import input_specs, random_inputs  # noqa: E402
from opdiff.producers.onnx.light_models import light_model_names, load_light_model  # noqa: E402
from opdiff.producers.onnx.random_weights import randomize_weights  # noqa: E402
from opdiff.results.findings import FindingKind  # noqa: E402
from opdiff.results.scenario import Scenario  # noqa: E402

MODEL = "squeezenet"
if MODEL not in light_model_names():
    pytest.skip(f"this onnx wheel ships no light_{MODEL}.onnx", allow_module_level=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp(MODEL)
    model = randomize_weights(load_light_model(MODEL), seed=0).model
    feeds = random_inputs(input_specs(model), seed=0)
    convs = [node.name for node in model.graph.node if node.op_type == "Conv"]
    fp16 = DumpOptions(fusion=True, precision=Precision.FP16, layout="NC1HWC0")
    return {
        "golden": dump_onnx(model, folder / "golden", feeds, name=MODEL),
        "fp16": dump_onnx(model, folder / "fp16", feeds, fp16, name=MODEL),
        "faulty": dump_onnx(model, folder / "faulty", feeds,
                            DumpOptions(fusion=True, precision=Precision.FP16, layout="NC1HWC0",
                                        faults=((convs[len(convs) // 2], 3.0),)), name=MODEL),
        "fused": dump_onnx(model, folder / "fused", feeds, DumpOptions(fusion=True), name=MODEL),
        "unfused": dump_onnx(model, folder / "unfused", feeds, DumpOptions(kind=OutputKind.DEVICE), name=MODEL),
        "faulty_node": convs[len(convs) // 2],
    }


def test_fp16_device_run_against_the_fp32_golden(runs):
    device, golden = runs["fp16"], runs["golden"]
    report = opdiff.compare(device.tensor_folder, golden.tensor_folder, fusion_rule=device.fusion_rule)
    dumped_outputs = [row for row in report.rows if ":output:" in row.tensor_index]
    assert dumped_outputs and sum(row.compared for row in dumped_outputs) / len(dumped_outputs) >= 0.95
    assert report.first_failure() is None  # fp16 rounding alone stays above cosine 0.99
    verdict = advise(report, opdiff.read_graph(device.fusion_rule))[-1]
    assert verdict.kind is FindingKind.VERDICT and "matches the golden" in verdict.advice


def test_injected_fault_is_found_as_the_culprit(runs):
    device, golden = runs["faulty"], runs["golden"]
    report = opdiff.compare(device.tensor_folder, golden.tensor_folder, fusion_rule=device.fusion_rule)
    findings = advise(report, opdiff.read_graph(device.fusion_rule))
    culprit = next(f for f in findings if f.kind is FindingKind.CULPRIT)
    fused_rule = opdiff.read_graph(device.fusion_rule)
    # the faulty Conv may be fused with what follows it: the culprit is the NPU op that contains it
    assert runs["faulty_node"] in fused_rule.op(culprit.op).original_names


def test_fusion_on_against_fusion_off(runs):
    on, off = runs["fused"], runs["unfused"]
    report = opdiff.compare(on.tensor_folder, off.tensor_folder, fusion_rule=on.fusion_rule, close_fusion_rule=off.fusion_rule)
    assert report.scenario is Scenario.FUSION_ON_VS_OFF
    outputs = [row for row in report.rows if ":output:" in row.tensor_index]
    assert sum(row.compared for row in outputs) / len(outputs) >= 0.95
    assert all(row.metrics.cosine_similarity > 0.9999 for row in outputs if row.compared)

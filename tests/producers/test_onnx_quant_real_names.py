"""The quantized scenario on a model named as PyTorch exports it (dotted weights, slashed nodes):
ONNX Runtime's quantizer then writes ``layer.weight_quantized``, which the reference's quant filter
reads as an Ascend weight-quant layer. What dump-onnx writes must not be misread that way, and an
op the filter does skip is reported as such, counted."""

import json

import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime.quantization")
pytestmark = pytest.mark.onnx  # ONNX Runtime runs here: not a core-facing test (.ci/run's sanitizer pass skips it)

import opdiff  # noqa: E402
from opdiff.cli import main  # noqa: E402
from opdiff.conventions.dump_names import escape_op_name  # noqa: E402
from opdiff.dumps.discovery import index_folder  # noqa: E402
from opdiff.graph import quant_filter  # noqa: E402
from opdiff.producers.onnx.light_models import light_model_names, load_light_model  # noqa: E402
from opdiff.producers.onnx.random_weights import randomize_weights  # noqa: E402
from tests.support.qdq_coverage import agreement, float_op_coverage  # noqa: E402
from tests.support.torch_style_model import torch_style_model  # noqa: E402


def dump_float_and_qdq(folder, model):
    """(float golden run folder, QDQ run folder) of `model`, both written by `opdiff dump-onnx`."""
    path = folder / "model.onnx"
    onnx.save(model, str(path))
    assert main(["dump-onnx", str(path), "--random-inputs", "0", "-o", str(folder / "float")]) == 0
    # the inputs' file names are their graph names here (no '/' in either model's input names)
    inputs = [f"--input={p.stem}={p}" for p in (folder / "float" / "inputs").glob("*.npy")]
    assert main(["dump-onnx", str(path), *inputs, "--qdq", "4", "-o", str(folder / "qdq")]) == 0
    return folder / "float", folder / "qdq"


@pytest.fixture(scope="module")
def torch_runs(tmp_path_factory):
    return dump_float_and_qdq(tmp_path_factory.mktemp("torch_style"), torch_style_model(blocks=4))


@pytest.fixture(scope="module")
def squeezenet_runs(tmp_path_factory):
    if "squeezenet" not in light_model_names():
        pytest.skip("this onnx wheel ships no light_squeezenet.onnx")
    return dump_float_and_qdq(tmp_path_factory.mktemp("squeezenet"), randomize_weights(load_light_model("squeezenet"), seed=0).model)


def int8_weights(model):
    """The int8 initializers that a DequantizeLinear turns back into weights (not zero points)."""
    int8 = {i.name for i in model.graph.initializer if i.data_type == onnx.TensorProto.INT8}
    return sorted({n.input[0] for n in model.graph.node if n.op_type == "DequantizeLinear" and n.input[0] in int8})


def compare(runs, rule=None):
    golden, qdq = runs
    return opdiff.compare(qdq / "dump", golden / "golden", fusion_rule=rule or qdq / "fusion_rule.json")


def test_the_model_has_the_features_that_broke(torch_runs):
    _, qdq = torch_runs
    ran = onnx.load(str(qdq / "model.onnx"))
    weights = int8_weights(ran)
    assert len(weights) == 10 and all(name.endswith(".weight_quantized") for name in weights)  # 10 Conv
    assert sum(n.op_type == "DequantizeLinear" and n.input[0] in weights for n in ran.graph.node) == len(weights)
    assert all(n.name.startswith("/") for n in ran.graph.node if n.op_type in ("Conv", "PRelu", "Add"))


@pytest.mark.parametrize("model", ["torch_runs", "squeezenet_runs"])
def test_the_quant_filter_skips_no_op_and_every_float_tensor_is_compared(request, model):
    runs = request.getfixturevalue(model)
    _, qdq = runs
    rule = opdiff.read_graph(qdq / "fusion_rule.json")
    assert quant_filter(rule).skipped_ops == frozenset()
    report = compare(runs)
    coverage = float_op_coverage(rule, report.rows)
    assert len(coverage.tensors) > 20
    assert coverage.share >= 0.95, coverage.missed
    assert not any("quant filter" in note or "does not name" in note for note in report.notes), report.notes
    # the int8 domain has no float golden: QuantizeLinear outputs and int8 weights are not compared
    by_label = {row.tensor_index: row for row in report.rows}
    for op in rule.ops:
        if op.type == "QuantizeLinear":
            assert not by_label[f"{op.name}:output:0"].compared
        if op.type == "DequantizeLinear":
            assert not by_label[f"{op.name}:input:0"].compared
    figures = agreement(report.rows, coverage.tensors)
    assert figures.tensors == len(coverage.compared)
    # the input of a Relu is quantized with the Relu's range (negatives clip to 0): mapped to X's
    # golden instead of the Relu's, such a tensor would show cosine ~0.7 on squeezenet
    assert figures.cosine.minimum > 0.99 and 0.999 < figures.cosine.median <= figures.cosine.maximum <= 1.0
    assert 0.99 < figures.norm_ratio.median < 1.01 and figures.norm_ratio.maximum < 1.05
    # the default verdict judges a quantized run by its int8 row: an unfaulted run passes it, but
    # for squeezenet's final Softmax (random weights: logits up to 13.5), which turns its input's
    # int8 error (cosine 0.9997, norm 2.3% off, within the row) into an 11% error of the
    # probabilities' norm: exponentiation amplifies the logits' absolute error (docs/scenario-quantized.md)
    verdict = report.verdict()
    assert [row.name for row in verdict.rows_in_use(report.rows)] == ["int8-quantised vs float"]
    failing = [row.tensor_index for row in report.failing()]
    if model == "torch_runs":
        assert failing == [], verdict.limits_text(report.rows)
    else:
        softmax = next(op.name for op in rule.ops if op.type == "Softmax")
        assert failing == [f"{softmax}:output:0"]
        assert not verdict.fails(by_label[f"{softmax}:input:0"])


def ascend_like_rule(qdq, target):
    """The QDQ run's rule with each int8 weight's Const op named as the initializer ONNX Runtime
    wrote (``layer.weight_quantized``), as dump-onnx named it before: the quant filter then reads
    those Consts as Ascend weight-quant layers."""
    text = (qdq / "fusion_rule.json").read_text()
    for name in int8_weights(onnx.load(str(qdq / "model.onnx"))):
        if escape_op_name(name) != name:
            text = text.replace(json.dumps(escape_op_name(name)), json.dumps(name))
            text = text.replace(json.dumps(escape_op_name(name) + ":0"), json.dumps(name + ":0"))
    target.write_text(text)
    return target


def test_ops_the_quant_filter_skips_are_counted_as_such(torch_runs, tmp_path):
    _, qdq = torch_runs
    rule_path = ascend_like_rule(qdq, tmp_path / "rule.json")
    skipped = quant_filter(opdiff.read_graph(rule_path)).skipped_ops
    assert len(skipped) > 20  # the weight DequantizeLinears and everything downstream of the first
    dumps = index_folder(qdq / "dump")
    with_files = [op for op in skipped if dumps.newest(escape_op_name(op)) is not None]
    report = compare(torch_runs, rule_path)
    notes = [note for note in report.notes if "quant filter" in note]
    assert notes == [f"{len(with_files)} dump file(s) of {len(with_files)} op(s) that the quant filter skips "
                     "(inside a quant/dequant pair) were not compared"]
    assert not any("does not name" in note for note in report.notes)
    assert not any(row.tensor_index.split(":")[0] in skipped for row in report.rows)


@pytest.mark.cli_output
def test_the_cli_prints_the_quant_filter_note(torch_runs, tmp_path, capsys):
    golden, qdq = torch_runs
    rule_path = ascend_like_rule(qdq, tmp_path / "rule.json")
    code = main(["compare", "-m", str(qdq / "dump"), "-g", str(golden / "golden"), "-f", str(rule_path), "-out", str(tmp_path / "out")])
    assert code in (0, 1)
    out = " ".join(capsys.readouterr().out.split())
    assert "that the quant filter skips" in out and "does not name" not in out


def test_float_op_tensors_leave_out_weights(torch_runs):
    _, qdq = torch_runs
    rule = opdiff.read_graph(qdq / "fusion_rule.json")
    labels = float_op_coverage(rule, []).tensors
    convs = [op for op in rule.ops if op.type == "Conv"]
    assert convs
    for op in convs:  # X is counted, W and B (DequantizeLinear of int8/int32 Consts) are not
        assert f"{op.name}:input:0" in labels and f"{op.name}:input:1" not in labels
        assert f"{op.name}:output:0" in labels


def test_dump_onnx_notes_a_rule_the_quant_filter_would_misread(torch_runs, tmp_path):
    from opdiff.producers.onnx.dump import quant_filter_notes

    _, qdq = torch_runs
    assert quant_filter_notes(opdiff.read_graph(qdq / "fusion_rule.json")) == []
    misread = opdiff.read_graph(ascend_like_rule(qdq, tmp_path / "rule.json"))
    [note] = quant_filter_notes(misread)
    assert f"reads {len(quant_filter(misread).skipped_ops)} op(s)" in note

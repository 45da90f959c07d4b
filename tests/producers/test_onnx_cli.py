"""`opdiff dump-onnx`: golden and device runs from the command line, errors and exit codes."""

import numpy as np
import pytest

from opdiff.cli import main

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx  # ONNX Runtime runs here: not a core-facing test (.ci/run's sanitizer pass skips it)

import opdiff  # noqa: E402
from opdiff.dumps.discovery import FileKind, index_folder  # noqa: E402
from opdiff.producers.onnx.light_models import light_model_names  # noqa: E402
from tests.support.onnx_models import mlp_model  # noqa: E402


def save_mlp(tmp_path):
    model, _, _ = mlp_model()
    path = tmp_path / "mlp.onnx"
    onnx.save(model, str(path))
    return path


@pytest.mark.cli_output
def test_golden_then_device_run_with_the_same_inputs(tmp_path, capsys):
    path = save_mlp(tmp_path)
    assert main(["dump-onnx", str(path), "--random-inputs", "1", "-o", str(tmp_path / "g")]) == 0
    out = capsys.readouterr().out
    assert "golden run" in out and "dynamic dims batch set to 1" in out
    assert index_folder(tmp_path / "g" / "golden").kind is FileKind.GOLDEN
    saved = tmp_path / "g" / "inputs" / "in_x.npy"
    assert main(["dump-onnx", str(path), "--input", f"in/x={saved}", "--dtype", "fp16", "-o", str(tmp_path / "d")]) == 0
    assert "device run" in capsys.readouterr().out
    device = index_folder(tmp_path / "d" / "dump")
    assert device.kind is FileKind.NPU
    assert opdiff.read_graph(tmp_path / "d" / "fusion_rule.json").name == "mlp"
    golden_input = np.load(index_folder(tmp_path / "g" / "golden").newest("in_x.0").path)
    cast = opdiff.read_dump(device.newest("in_x_to_fp16").path)
    np.testing.assert_array_equal(cast.inputs[0].to_numpy(), golden_input)


@pytest.mark.cli_output
@pytest.mark.skipif("squeezenet" not in light_model_names(), reason="no light squeezenet in this onnx wheel")
def test_light_model_with_random_weights_and_fusion(tmp_path, capsys):
    args = ["dump-onnx", "light:squeezenet", "--randomize-weights", "0", "--random-inputs", "0", "--fusion", "on", "-o", str(tmp_path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "tensors mapped to golden" in out and "100.0%" in out and "weights randomized: 26 dense, 26 bias" in out
    fm = opdiff.read_graph(tmp_path / "fusion_rule.json")
    assert any(op.type == "FusedConv" for op in fm.ops)


@pytest.mark.cli_output
@pytest.mark.parametrize(
    "args, message",
    [
        (["missing.onnx"], "no such file"),
        (["{bad}"], "not an ONNX model"),
        (["{mlp}", "--input", "nope"], "is not NAME=FILE.npy"),
        (["{mlp}"], "--random-inputs"),
        (["light:nonet"], "no light model 'nonet'"),
    ],
)
def test_bad_arguments_exit_2(tmp_path, capsys, args, message):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage")
    mlp = save_mlp(tmp_path)
    args = [a.format(bad=bad, mlp=mlp) for a in args]
    assert main(["dump-onnx", *args, "-o", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.cli_output
def test_a_failing_run_exits_1(tmp_path, capsys):
    path = save_mlp(tmp_path)
    wrong = tmp_path / "wrong.npy"
    np.save(wrong, np.ones((2, 5), np.float32))  # the model wants 4 columns
    assert main(["dump-onnx", str(path), "--input", f"in/x={wrong}", "-o", str(tmp_path / "out")]) == 1
    assert "the run failed" in capsys.readouterr().err


@pytest.mark.cli_output
def test_fault_option(tmp_path, capsys):
    path = save_mlp(tmp_path)
    common = ["dump-onnx", str(path), "--random-inputs", "0", "--dtype", "fp16"]
    assert main([*common, "--fault", "fc/mat.mul=2", "-o", str(tmp_path / "f")]) == 0
    assert "fault injected: node fc/mat.mul weights x2" in capsys.readouterr().out
    assert main([*common, "--fault", "fc=x", "-o", str(tmp_path / "e")]) == 2
    assert "is not NODE=SCALE" in capsys.readouterr().err
    assert main([*common, "--fault", "missing", "-o", str(tmp_path / "e")]) == 2
    assert "no node 'missing'" in capsys.readouterr().err


@pytest.mark.cli_output
def test_qdq_option_runs_the_quantized_copy_against_the_float_golden(tmp_path, capsys):
    pytest.importorskip("onnxruntime.quantization")
    path = save_mlp(tmp_path)
    assert main(["dump-onnx", str(path), "--random-inputs", "0", "--qdq", "2", "-o", str(tmp_path / "q")]) == 0
    out = capsys.readouterr().out
    assert "device run" in out and "QDQ int8 copy calibrated on 2 seeded random batches" in out
    fm = opdiff.read_graph(tmp_path / "q" / "fusion_rule.json")
    assert {"QuantizeLinear", "DequantizeLinear"} <= {op.type for op in fm.ops}
    assert fm.op("softmax").original_names == ("softmax",)
    assert main(["dump-onnx", str(path), "--random-inputs", "0", "--qdq", "0", "-o", str(tmp_path / "e")]) == 2

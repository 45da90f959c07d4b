"""opdiff precision --qdq N: the layers to leave unquantized. The set found is 1-minimal, and the
skip list it writes, given to dump-onnx --qdq N --skip-file, passes the target."""

import json

import numpy as np
import pytest

from opdiff.cli import main

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx

import opdiff  # noqa: E402
from opdiff.conventions.dump_names import escape_op_name  # noqa: E402
from opdiff.conventions.keep_dtype import parse_skip_layers  # noqa: E402
from opdiff.dumps.discovery import index_folder  # noqa: E402
from opdiff.producers.model_inputs import input_specs, random_inputs  # noqa: E402
from tests.support.precision_runs import output_of  # noqa: E402
from tests.support.torch_style_model import torch_style_model  # noqa: E402

TARGET = "CosineSimilarity=0.9999"  # the default verdict passes this int8 copy as it is


def test_the_skip_list_is_one_minimal_and_passes_when_applied(tmp_path, capsys):
    model = torch_style_model(blocks=3, channels=8, size=16)
    path = tmp_path / "net.onnx"
    onnx.save(model, str(path))
    np.save(tmp_path / "input.npy", random_inputs(input_specs(model), 0)["input"])
    inputs = ["--input", f"input={tmp_path / 'input.npy'}"]
    assert main(["precision", str(path), *inputs, "--qdq", "2", "--fail-under", TARGET, "-out", str(tmp_path / "p")]) == 0
    assert "left unquantized" in capsys.readouterr().out
    skip = tmp_path / "p" / "amct_skip_layers.cfg"
    kept = parse_skip_layers(skip.read_text())
    report = json.loads((tmp_path / "p" / "precision.json").read_text())
    assert kept and report["outcome"] == "found" and report["mode"] == "int8"
    passed = {frozenset(step["kept"]): step["passed"] for step in report["steps"]}
    assert passed[frozenset(kept)]
    for name in kept:  # 1-minimal: each removal was evaluated, and fails
        assert passed[frozenset(kept) - {name}] is False, name
    output_op = model.graph.node[-1].name
    golden = _golden_output(model, tmp_path)
    for skip_file, passes in ((skip, True), (_without(tmp_path, kept, kept[0]), False)):
        out = tmp_path / f"run_{skip_file.stem}"
        assert main(["dump-onnx", str(path), *inputs, "--qdq", "2", "--skip-file", str(skip_file), "-o", str(out)]) == 0
        got = output_of(out, output_op)
        assert (opdiff.metrics(got, golden).cosine_similarity >= 0.9999) is passes


def _without(tmp_path, kept, name):
    path = tmp_path / "fewer.cfg"
    path.write_text("".join(f'skip_layers : "{k}"\n' for k in kept if k != name))
    return path


def _golden_output(model, tmp_path):
    assert main(["dump-onnx", str(tmp_path / "net.onnx"), "--input", f"input={tmp_path / 'input.npy'}", "-o", str(tmp_path / "g")]) == 0
    index = index_folder(tmp_path / "g" / "golden")
    return np.load(index.newest(f"{escape_op_name(model.graph.node[-1].name)}.0").path)


def test_a_skip_file_without_qdq_is_refused(tmp_path, capsys):
    model = torch_style_model(blocks=1, channels=4, size=8)
    onnx.save(model, str(tmp_path / "net.onnx"))
    (tmp_path / "skip.cfg").write_text("x\n")
    assert main(["dump-onnx", str(tmp_path / "net.onnx"), "--random-inputs", "0", "--skip-file", str(tmp_path / "skip.cfg"),
                 "-o", str(tmp_path / "d")]) == 2
    assert "needs --qdq" in capsys.readouterr().err

"""`opdiff dump-caffe`: runs from the command line, inputs and shapes, and exit 2 naming the file
or the layer for what it cannot read or run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from opdiff.cli import main

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx  # ONNX Runtime runs here: not a core-facing test

from opdiff.dumps.discovery import FileKind, index_folder  # noqa: E402
from tests.support.caffe_models import NetWriter, every_layer_net  # noqa: E402


def small_net() -> NetWriter:
    writer = NetWriter("small")
    writer.input("data", (1, 2, 5, 5))
    writer.layer("conv", "Convolution", ["data"], ["conv"], [np.ones((3, 2, 3, 3)), np.zeros(3)], convolution_param={"num_output": 3, "kernel_size": [3]})
    writer.layer("relu", "ReLU", ["conv"], ["conv"])
    return writer


def test_random_inputs_then_the_same_inputs_from_their_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prototxt, caffemodel = every_layer_net().write(tmp_path)
    assert main(["dump-caffe", str(prototxt), str(caffemodel), "--random-inputs", "2", "-o", str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert "golden run" in out and "in-place top(s) kept under their own layer's name" in out
    first = index_folder(tmp_path / "a" / "golden")
    assert first.kind is FileKind.GOLDEN
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["kind"] == "golden" and manifest["files"] == 53
    saved = tmp_path / "a" / "inputs" / "data.npy"
    assert main(["dump-caffe", str(prototxt), str(caffemodel), "--input", f"data={saved}", "-o", str(tmp_path / "b")]) == 0
    second = index_folder(tmp_path / "b" / "golden")
    np.testing.assert_array_equal(np.load(first.newest("fc.0").path), np.load(second.newest("fc.0").path))


def test_a_data_layer_takes_its_shape_from_input_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    writer = NetWriter("data_layer")
    writer.layer("data", "Data", [], ["data", "label"], data_param={"batch_size": 4})
    writer.layer("relu", "ReLU", ["data"], ["relu"])
    prototxt, _ = writer.write(tmp_path)
    assert main(["dump-caffe", str(prototxt), "--random-inputs", "0", "-o", str(tmp_path / "x")]) == 2
    assert "give --input-shape data:N,C,H,W" in capsys.readouterr().err
    assert main(["dump-caffe", str(prototxt), "--random-inputs", "0", "--input-shape", "data:2,3,4,4", "-o", str(tmp_path / "o")]) == 0
    assert np.load(index_folder(tmp_path / "o" / "golden").newest("relu.0").path).shape == (2, 3, 4, 4)


def test_legacy_inputs_input_dim_and_input_shape(tmp_path: Path) -> None:
    for header in ('input: "x" input_dim: 1 input_dim: 2 input_dim: 3 input_dim: 3', 'input: "x" input_shape { dim: 1 dim: 2 dim: 3 dim: 3 }'):
        prototxt = tmp_path / "legacy.prototxt"
        prototxt.write_text(header + ' layer { name: "s" type: "Sigmoid" bottom: "x" top: "s" }')
        assert main(["dump-caffe", str(prototxt), "--random-inputs", "0", "-o", str(tmp_path / "o")]) == 0
        assert np.load(index_folder(tmp_path / "o" / "golden").newest("s.0").path).shape == (1, 2, 3, 3)


def test_an_unsupported_layer_exits_2_naming_the_layer_and_its_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    writer = small_net()
    writer.layer("boxes", "DetectionOutput", ["conv"], ["boxes"])
    prototxt, caffemodel = writer.write(tmp_path)
    assert main(["dump-caffe", str(prototxt), str(caffemodel), "--random-inputs", "0", "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "layer boxes has type DetectionOutput" in err and "Traceback" not in err


@pytest.mark.parametrize("damage", ["prototxt", "caffemodel", "missing"])
def test_a_damaged_file_exits_2_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str) -> None:
    prototxt, caffemodel = small_net().write(tmp_path)
    if damage == "prototxt":
        prototxt.write_text(prototxt.read_text()[:-30] + " }}} layer {")
        named = prototxt
    elif damage == "caffemodel":
        caffemodel.write_bytes(caffemodel.read_bytes()[:-7])
        named = caffemodel
    else:
        named = tmp_path / "absent.caffemodel"
        caffemodel = named
    assert main(["dump-caffe", str(prototxt), str(caffemodel), "--random-inputs", "0", "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert str(named) in err.replace("\n", "") and "Traceback" not in err


def test_weights_that_do_not_fit_exit_2_naming_the_layer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    writer = small_net()
    writer.blobs["conv"] = [np.ones((3, 2, 3, 3))]  # no bias blob, though bias_term is on
    prototxt, caffemodel = writer.write(tmp_path)
    assert main(["dump-caffe", str(prototxt), str(caffemodel), "--random-inputs", "0", "-o", str(tmp_path / "o")]) == 2
    assert "layer conv (Convolution): no bias blob" in capsys.readouterr().err


def test_weights_of_the_wrong_size_exit_2_naming_the_layer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    writer = small_net()
    writer.layer("fc", "InnerProduct", ["conv"], ["fc"], [np.ones((2, 5)), np.zeros(2)], inner_product_param={"num_output": 2})
    prototxt, caffemodel = writer.write(tmp_path)
    assert main(["dump-caffe", str(prototxt), str(caffemodel), "--random-inputs", "0", "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "layer fc (InnerProduct): cannot reshape" in err and "Traceback" not in err


def test_a_pool_whose_last_window_reads_nothing_exits_2_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    writer = NetWriter("subsample")
    writer.input("data", (1, 1, 6, 6))
    writer.layer("pool", "Pooling", ["data"], ["pool"], pooling_param={"pool": 0, "kernel_size": 1, "stride": 2})
    prototxt, _ = writer.write(tmp_path)
    assert main(["dump-caffe", str(prototxt), "--random-inputs", "0", "-o", str(tmp_path / "o")]) == 2
    assert "layer pool (Pooling): the last window along axis 2 starts at 6" in capsys.readouterr().err

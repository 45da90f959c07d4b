"""A Caffe network through the whole chain: dump-caffe's golden, a device-style run of it (ATC's
Conv+BN+Scale+ReLU fusion, fp16 dumps) with one faulty convolution, its atc JSON, and
`opdiff compare`, which puts the faulty layer first."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from opdiff.cli import main

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx  # ONNX Runtime runs here: not a core-facing test

import opdiff  # noqa: E402
from opdiff.dumps.discovery import index_folder  # noqa: E402
from opdiff.producers.caffe.dump import dump_caffe, load_caffe  # noqa: E402
from tests.support.caffe_device_run import scaled_channels, write_device_run  # noqa: E402
from tests.support.caffe_models import ResNetShape, resnet_net  # noqa: E402

FAULTY = "res3a_branch2b"


def golden_tensors(writer, folder: Path, feeds) -> tuple[Path, dict]:
    prototxt, caffemodel = writer.write(folder / "model")
    result = dump_caffe(load_caffe(prototxt, caffemodel), folder / "out", feeds)
    index = index_folder(result.tensor_folder)
    tensors = {(layer.name, k): np.load(index.newest(f"{layer.name}.{k}").path) for layer in writer.net.layer for k in range(len(layer.top))}
    return result.tensor_folder, tensors


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    folder = tmp_path_factory.mktemp("caffe_chain")
    shape = ResNetShape(blocks=(1, 2), width=8, size=32, classes=10)
    feeds = {"data": np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32)}
    golden, _ = golden_tensors(resnet_net(shape), folder / "golden", feeds)
    faulty = resnet_net(shape)
    faulty.blobs[FAULTY] = scaled_channels(faulty.blobs[FAULTY], 3.0)
    _, device_tensors = golden_tensors(faulty, folder / "faulty", feeds)
    dump, rule = write_device_run(folder / "device", faulty, device_tensors)
    return golden, dump, rule, folder


def test_compare_puts_the_faulty_layer_first(chain, capsys: pytest.CaptureFixture[str]) -> None:
    golden, dump, rule, folder = chain
    out = folder / "report"
    main(["compare", "-m", str(dump), "-g", str(golden), "-f", str(rule), "-out", str(out)])
    capsys.readouterr()
    (table,) = out.glob("result_*.csv")
    rows = list(csv.DictReader(table.open(newline="")))
    outputs = [row for row in rows if ":output:" in row["TensorIndex"]]
    assert len(outputs) > 20 and all(row["CosineSimilarity"] not in ("", "NaN") for row in outputs)
    report = opdiff.compare(dump, golden, fusion_rule=rule)
    first = report.first_failure()
    assert first is not None and first.tensor.op == FAULTY, first


def test_the_fused_ops_find_their_layers_goldens(chain) -> None:
    golden, dump, rule, _ = chain
    fusion_map = opdiff.read_graph(rule)
    conv = fusion_map.op("res2a_branch2a")
    assert conv.original_names == ("res2a_branch2a", "bn_res2a_branch2a", "scale_res2a_branch2a", "res2a_branch2a_relu")
    report = opdiff.compare(dump, golden, fusion_rule=rule)
    matched = [row for row in report.rows if row.tensor.op == "res2a_branch2a" and ":output:" in row.tensor_index]
    assert matched and matched[0].ground_truth.split(",")[-1] == "res2a_branch2a_relu"
    # the fused op's output is the in-place ReLU's golden (kept apart from the convolution's): it matches
    assert matched[0].metrics.cosine_similarity > 0.9999 and matched[0].metrics.allclose_fraction == 1.0

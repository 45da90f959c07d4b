"""dump-caffe's goldens, layer by layer, against a numpy forward pass written from Caffe's own
definitions (tests/support/caffe_reference.py): max|a - b| <= 1e-5 max|b| in float32."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx  # ONNX Runtime runs here: not a core-facing test

from opdiff.dumps.discovery import index_folder  # noqa: E402
from opdiff.producers.caffe.dump import dump_caffe, load_caffe  # noqa: E402
from opdiff.producers.caffe.layer_table import CONVERTERS  # noqa: E402
from tests.support.caffe_models import NetWriter, every_layer_net  # noqa: E402
from tests.support.caffe_reference import forward  # noqa: E402

TOLERANCE = 1e-5


def run_net(writer: NetWriter, tmp_path: Path, feeds: dict[str, np.ndarray]) -> dict[tuple[str, int], np.ndarray]:
    prototxt, caffemodel = writer.write(tmp_path / "model")
    result = dump_caffe(load_caffe(prototxt, caffemodel), tmp_path / "out", feeds)
    index = index_folder(result.tensor_folder)
    goldens = {}
    for layer in writer.net.layer:
        for k in range(len(layer.top)):
            entry = index.newest(f"{layer.name}.{k}")
            assert entry is not None, f"no golden for {layer.name} top {k}"
            goldens[(layer.name, k)] = np.load(entry.path)
    return goldens


def assert_agrees(golden: np.ndarray, expected: np.ndarray, what: str) -> None:
    assert golden.dtype == np.float32, what
    assert golden.shape == expected.shape, f"{what}: shape {golden.shape}, Caffe's {expected.shape}"
    bound = TOLERANCE * max(float(np.abs(expected).max()), np.finfo(np.float32).tiny)
    error = float(np.abs(golden.astype(np.float64) - expected).max())
    assert error <= bound, f"{what}: max|a-b| {error:.3g} over {bound:.3g}"


def test_every_layer_agrees_with_caffes_definition(tmp_path: Path) -> None:
    writer = every_layer_net()
    feeds = {"data": np.random.default_rng(3).standard_normal((1, 4, 9, 9)).astype(np.float32)}
    goldens = run_net(writer, tmp_path, feeds)
    expected = forward(writer, feeds)
    assert set(goldens) == set(expected)
    for key, value in expected.items():
        assert_agrees(goldens[key], value, f"{key[0]} top {key[1]}")


def test_the_net_covers_every_layer_type_and_in_place_layers() -> None:
    writer = every_layer_net()
    types = {layer.type for layer in writer.net.layer}
    assert set(CONVERTERS) - types == set()
    in_place = [layer.name for layer in writer.net.layer if set(layer.top) & set(layer.bottom)]
    assert in_place == ["bn1", "scale1", "relu1", "drop"]


def test_in_place_layers_keep_every_output_under_their_own_names(tmp_path: Path) -> None:
    writer = every_layer_net()
    feeds = {"data": np.random.default_rng(4).standard_normal((1, 4, 9, 9)).astype(np.float32)}
    goldens = run_net(writer, tmp_path, feeds)
    conv, relu = goldens[("conv1", 0)], goldens[("relu1", 0)]
    assert (conv < 0).any() and not (relu < 0).any()  # the convolution's golden is not the ReLU's
    np.testing.assert_array_equal(goldens[("drop", 0)], goldens[("eltmax", 0)])


def pooling_net(size: int, kernel: int, stride: int, pad: int, pool: int) -> NetWriter:
    writer = NetWriter("pool")
    writer.input("data", (1, 1, size, size))
    writer.layer("pool", "Pooling", ["data"], ["pool"], pooling_param={"pool": pool, "kernel_size": kernel, "stride": stride, "pad": pad})
    return writer


def test_pooling_7x7_kernel_3_stride_2_pad_1_by_hand(tmp_path: Path) -> None:
    """4x4 output (ceil((7 + 2 - 3) / 2) + 1); the last window [5, 8) is clipped to the input's
    [5, 7) for MAX, and AVE divides by 3 along it (the window clipped to H + pad = 8)."""
    x = np.arange(49, dtype=np.float32).reshape(1, 1, 7, 7)
    maximum = run_net(pooling_net(7, 3, 2, 1, 0), tmp_path / "max", {"data": x})[("pool", 0)]
    rows = [1, 3, 5, 6]  # the largest row (and column) each window covers: [0,2), [1,4), [3,6), [5,7)
    assert maximum.shape == (1, 1, 4, 4)
    np.testing.assert_array_equal(maximum[0, 0], np.array([[7 * r + c for c in rows] for r in rows], np.float32))
    average = run_net(pooling_net(7, 3, 2, 1, 1), tmp_path / "ave", {"data": x})[("pool", 0)]
    corner = (0 + 1 + 7 + 8) / 9  # window [-1, 2) x [-1, 2): four input values over 3 x 3
    last = (40 + 41 + 47 + 48) / 9  # window [5, 8) x [5, 8): rows and columns 5 and 6, over 3 x 3
    assert average[0, 0, 0, 0] == pytest.approx(corner, rel=1e-6)
    assert average[0, 0, 3, 3] == pytest.approx(last, rel=1e-6)


def test_pooling_drops_a_last_window_that_starts_in_the_pad(tmp_path: Path) -> None:
    """5x5, kernel 2, stride 2, pad 1: ceil((5 + 2 - 2) / 2) + 1 = 4, but window 3 would start at
    3 x 2 = 6 >= H + pad (inside the end pad alone): Caffe keeps 3 outputs."""
    x = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    for pool in (0, 1):
        writer = pooling_net(5, 2, 2, 1, pool)
        golden = run_net(writer, tmp_path / str(pool), {"data": x})[("pool", 0)]
        assert golden.shape == (1, 1, 3, 3)
        assert_agrees(golden, forward(writer, {"data": x})[("pool", 0)], f"pool {pool}")


@pytest.mark.parametrize("size,kernel,stride,pad", [(6, 3, 2, 0), (8, 3, 3, 1), (11, 4, 3, 2), (9, 5, 4, 2), (10, 2, 3, 0)])
def test_pooling_odd_sizes_agree_with_caffe(tmp_path: Path, size: int, kernel: int, stride: int, pad: int) -> None:
    x = np.random.default_rng(size).standard_normal((1, 1, size, size)).astype(np.float32)
    for pool in (0, 1):
        writer = pooling_net(size, kernel, stride, pad, pool)
        golden = run_net(writer, tmp_path / str(pool), {"data": x})[("pool", 0)]
        assert_agrees(golden, forward(writer, {"data": x})[("pool", 0)], f"{size}/{kernel}/{stride}/{pad} pool {pool}")


def test_batch_norm_scale_factor_zero_means_zero_statistics(tmp_path: Path) -> None:
    writer = NetWriter("bn")
    writer.input("data", (2, 3, 2, 2))
    writer.layer("bn", "BatchNorm", ["data"], ["bn"], [np.ones(3), np.full(3, 4.0), np.array([0.0])])
    x = np.random.default_rng(0).standard_normal((2, 3, 2, 2)).astype(np.float32)
    golden = run_net(writer, tmp_path, {"data": x})[("bn", 0)]
    assert_agrees(golden, x / np.sqrt(1e-5), "bn")


V1_PROTOTXT = '''name: "v1"
input: "data"
input_dim: 1 input_dim: 3 input_dim: 8 input_dim: 8
layers { name: "conv1" type: CONVOLUTION bottom: "data" top: "conv1" blobs_lr: 1 blobs_lr: 2
         convolution_param { num_output: 4 kernel_size: 3 stride: 1 pad: 1 } }
layers { name: "relu1" type: RELU bottom: "conv1" top: "conv1" }
layers { name: "norm1" type: LRN bottom: "conv1" top: "norm1" lrn_param { local_size: 3 alpha: 0.0001 beta: 0.75 } }
layers { name: "pool1" type: POOLING bottom: "norm1" top: "pool1" pooling_param { pool: MAX kernel_size: 3 stride: 2 } }
layers { name: "fc" type: INNER_PRODUCT bottom: "pool1" top: "fc" inner_product_param { num_output: 5 } }
layers { name: "drop" type: DROPOUT bottom: "fc" top: "fc" dropout_param { dropout_ratio: 0.5 } }
layers { name: "prob" type: SOFTMAX bottom: "fc" top: "prob" }
layers { name: "loss" type: SOFTMAX_LOSS bottom: "fc" bottom: "label" top: "loss" include { phase: TRAIN } }
'''


def test_the_v1_form_with_legacy_blob_dims_reads_as_the_current_form(tmp_path: Path) -> None:
    """Old model-zoo nets: ``layers { type: CONVOLUTION }``, input_dim, blobs with num/channels/height/width
    only, a TRAIN-only loss layer; the same net written in the current form gives the same goldens."""
    from opdiff.producers.caffe.proto import caffe_pb2

    rng = np.random.default_rng(7)
    blobs = {"conv1": [rng.standard_normal((4, 3, 3, 3)), rng.standard_normal(4)], "fc": [rng.standard_normal((5, 64)), rng.standard_normal(5)]}
    old = caffe_pb2.NetParameter(name="v1")
    for name, values in blobs.items():
        layer = old.layers.add(name=name, type=caffe_pb2.V1LayerParameter.CONVOLUTION if name == "conv1" else caffe_pb2.V1LayerParameter.INNER_PRODUCT)
        for value in values:
            legacy = (1,) * (4 - value.ndim) + value.shape
            layer.blobs.add(num=legacy[0], channels=legacy[1], height=legacy[2], width=legacy[3], data=value.ravel().tolist())
    (tmp_path / "v1.prototxt").write_text(V1_PROTOTXT)
    (tmp_path / "v1.caffemodel").write_bytes(old.SerializeToString())
    feeds = {"data": rng.standard_normal((1, 3, 8, 8)).astype(np.float32)}
    result = dump_caffe(load_caffe(tmp_path / "v1.prototxt", tmp_path / "v1.caffemodel"), tmp_path / "out", feeds)
    index = index_folder(result.tensor_folder)
    assert index.newest("loss.0") is None  # the TRAIN-phase layer is not run
    current = NetWriter("v1")
    current.input("data", (1, 3, 8, 8))
    current.layer("conv1", "Convolution", ["data"], ["conv1"], blobs["conv1"], convolution_param={"num_output": 4, "kernel_size": [3], "pad": [1]})
    current.layer("relu1", "ReLU", ["conv1"], ["conv1"])
    current.layer("norm1", "LRN", ["conv1"], ["norm1"], lrn_param={"local_size": 3, "alpha": 0.0001, "beta": 0.75})
    current.layer("pool1", "Pooling", ["norm1"], ["pool1"], pooling_param={"pool": 0, "kernel_size": 3, "stride": 2})
    current.layer("fc", "InnerProduct", ["pool1"], ["fc"], blobs["fc"], inner_product_param={"num_output": 5})
    current.layer("drop", "Dropout", ["fc"], ["fc"])
    current.layer("prob", "Softmax", ["fc"], ["prob"])
    for (layer, k), value in forward(current, feeds).items():
        assert_agrees(np.load(index.newest(f"{layer}.{k}").path), value, layer)

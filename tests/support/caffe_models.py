"""Caffe models for the tests: a prototxt (text) and a caffemodel (binary) written from the vendored
caffe_pb2, and nets covering every layer type dump-caffe runs (in-place layers and odd pooling
sizes included)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from opdiff.producers.caffe.proto import caffe_pb2


@dataclass
class NetWriter:
    """A net being written: its layers and the blobs of each (kept out of the prototxt)."""

    name: str
    net: Any = None
    blobs: Dict[str, List[np.ndarray]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.net = caffe_pb2.NetParameter(name=self.name)

    def input(self, name: str, shape: Sequence[int]) -> None:
        layer = self.net.layer.add(name=name, type="Input", top=[name])
        layer.input_param.shape.add(dim=list(shape))

    def layer(self, name: str, kind: str, bottoms: Sequence[str], tops: Sequence[str], blobs: Sequence[np.ndarray] = (),
              **params: Dict[str, Any]) -> Any:
        """A layer; `params` maps a parameter field (``convolution_param``) to its fields."""
        layer = self.net.layer.add(name=name, type=kind, bottom=list(bottoms), top=list(tops))
        for field_name, values in params.items():
            target = getattr(layer, field_name)
            for key, value in values.items():
                if isinstance(value, (list, tuple)):
                    getattr(target, key).extend(value)
                elif isinstance(value, dict):
                    getattr(target, key).MergeFrom(type(getattr(target, key))(**value))
                else:
                    setattr(target, key, value)
        if blobs:
            self.blobs[name] = [np.asarray(b, np.float32) for b in blobs]
        return layer

    def write(self, folder: Path, stem: str = "") -> Tuple[Path, Path]:
        """``folder/{stem}.prototxt`` and ``folder/{stem}.caffemodel``."""
        from google.protobuf import text_format

        stem = stem or self.name
        folder.mkdir(parents=True, exist_ok=True)
        prototxt = folder / f"{stem}.prototxt"
        prototxt.write_text(text_format.MessageToString(self.net), encoding="utf-8")
        weights = caffe_pb2.NetParameter(name=self.name)
        for layer in self.net.layer:
            copy = weights.layer.add(name=layer.name, type=layer.type)
            for array in self.blobs.get(layer.name, []):
                blob = copy.blobs.add()
                blob.shape.dim.extend(array.shape)
                blob.data.extend(array.ravel().tolist())
        caffemodel = folder / f"{stem}.caffemodel"
        caffemodel.write_bytes(weights.SerializeToString())
        return prototxt, caffemodel


def _n(rng: np.random.Generator, *shape: int, scale: float = 0.5) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def every_layer_net(seed: int = 0) -> NetWriter:
    """A net with every layer type dump-caffe runs, in-place ReLU, Scale and Dropout, and pools of
    odd sizes whose last window is clipped (input 1x4x9x9)."""
    rng = np.random.default_rng(seed)
    w = NetWriter("every_layer")
    w.input("data", (1, 4, 9, 9))
    w.layer("conv1", "Convolution", ["data"], ["conv1"], [_n(rng, 6, 2, 3, 3), _n(rng, 6)],
            convolution_param={"num_output": 6, "group": 2, "kernel_h": 3, "kernel_w": 3, "pad_h": 1, "pad_w": 2, "stride_h": 1, "stride_w": 2})
    w.layer("bn1", "BatchNorm", ["conv1"], ["conv1"], [_n(rng, 6), np.abs(_n(rng, 6)) + 0.5, np.array([2.0])])
    w.layer("scale1", "Scale", ["conv1"], ["conv1"], [_n(rng, 6) + 1, _n(rng, 6)], scale_param={"bias_term": True})
    w.layer("relu1", "ReLU", ["conv1"], ["conv1"])
    w.layer("pool_max", "Pooling", ["conv1"], ["pool_max"], pooling_param={"pool": 0, "kernel_size": 3, "stride": 2, "pad": 1})
    w.layer("pool_ave", "Pooling", ["conv1"], ["pool_ave"], pooling_param={"pool": 1, "kernel_size": 3, "stride": 2})
    w.layer("conv_dil", "Convolution", ["data"], ["conv_dil"], [_n(rng, 3, 4, 3, 3)],
            convolution_param={"num_output": 3, "kernel_size": [3], "dilation": [2], "bias_term": False})
    w.layer("deconv", "Deconvolution", ["conv_dil"], ["deconv"], [_n(rng, 3, 2, 3, 3), _n(rng, 2)],
            convolution_param={"num_output": 2, "kernel_size": [3], "stride": [2], "pad": [1]})
    w.layer("upsample", "Deconvolution", ["deconv"], ["upsample"], [_n(rng, 2, 1, 4, 4)],
            convolution_param={"num_output": 2, "group": 2, "kernel_size": [4], "stride": [2], "pad": [1], "bias_term": False})
    w.layer("prelu", "PReLU", ["deconv"], ["prelu"], [_n(rng, 2)])
    w.layer("leaky", "ReLU", ["prelu"], ["leaky"], relu_param={"negative_slope": 0.1})
    w.layer("sigmoid", "Sigmoid", ["leaky"], ["sigmoid"])
    w.layer("tanh", "TanH", ["prelu"], ["tanh"])
    w.layer("elu", "ELU", ["prelu"], ["elu"], elu_param={"alpha": 0.7})
    w.layer("absval", "AbsVal", ["prelu"], ["absval"])
    w.layer("power", "Power", ["absval"], ["power"], power_param={"power": 1.5, "scale": 0.5, "shift": 0.25})
    w.layer("bnll", "BNLL", ["prelu"], ["bnll"])
    w.layer("eltsum", "Eltwise", ["sigmoid", "tanh", "elu"], ["eltsum"], eltwise_param={"operation": 1, "coeff": [1.0, -0.5, 2.0]})
    w.layer("eltprod", "Eltwise", ["eltsum", "power"], ["eltprod"], eltwise_param={"operation": 0})
    w.layer("eltmax", "Eltwise", ["eltprod", "bnll"], ["eltmax"], eltwise_param={"operation": 2})
    w.layer("drop", "Dropout", ["eltmax"], ["eltmax"], dropout_param={"dropout_ratio": 0.3})
    w.layer("pool_g", "Pooling", ["pool_max"], ["pool_g"], pooling_param={"pool": 1, "global_pooling": True})
    w.layer("pool_clip", "Pooling", ["eltmax"], ["pool_clip"], pooling_param={"pool": 1, "kernel_size": 2, "stride": 2, "pad": 1})
    w.layer("lrn_across", "LRN", ["pool_max"], ["lrn_across"], lrn_param={"local_size": 3, "alpha": 0.3, "beta": 0.75, "k": 2.0})
    w.layer("lrn_within", "LRN", ["pool_max"], ["lrn_within"], lrn_param={"local_size": 3, "alpha": 0.3, "beta": 0.75, "norm_region": 1})
    w.layer("concat", "Concat", ["lrn_across", "lrn_within"], ["concat"], concat_param={"axis": 1})
    w.layer("slice", "Slice", ["concat"], ["slice_a", "slice_b", "slice_c"], slice_param={"axis": 1, "slice_point": [4, 10]})
    w.layer("split", "Split", ["slice_b"], ["split_a", "split_b"])
    w.layer("bias", "Bias", ["split_a"], ["bias"], [_n(rng, 6)])
    w.layer("norm", "Normalize", ["split_b"], ["norm"], [np.abs(_n(rng, 6)) + 1], norm_param={"across_spatial": False, "channel_shared": False})
    w.layer("norm_all", "Normalize", ["bias"], ["norm_all"], [np.array([3.0])], norm_param={"across_spatial": True, "channel_shared": True})
    w.layer("g_flat", "Reshape", ["pool_g"], ["g_flat"], reshape_param={"shape": {"dim": [0, -1]}})
    w.layer("scale2", "Scale", ["norm", "g_flat"], ["scale2"], scale_param={"axis": 0})
    w.layer("crop", "Crop", ["norm_all", "pool_ave"], ["crop"], crop_param={"axis": 2, "offset": [1, 1]})
    w.layer("permute", "Permute", ["scale2"], ["permute"], permute_param={"order": [0, 2, 3, 1]})
    w.layer("flatten", "Flatten", ["permute"], ["flatten"], flatten_param={"axis": 1, "end_axis": 2})
    w.layer("fc_axis", "InnerProduct", ["flatten"], ["fc_axis"], [_n(rng, 3, 6), _n(rng, 3)], inner_product_param={"num_output": 3, "axis": 2})
    w.layer("reshape", "Reshape", ["flatten"], ["reshape"], reshape_param={"shape": {"dim": [0, -1]}})
    w.layer("fc", "InnerProduct", ["reshape"], ["fc"], [_n(rng, 5, 120), _n(rng, 5)], inner_product_param={"num_output": 5})
    w.layer("fc_t", "InnerProduct", ["crop"], ["fc_t"], [_n(rng, 72, 4), _n(rng, 4)], inner_product_param={"num_output": 4, "transpose": True})
    w.layer("softmax", "Softmax", ["fc"], ["softmax"], softmax_param={"axis": 1})
    w.layer("argmax", "ArgMax", ["pool_ave"], ["argmax"], argmax_param={"top_k": 2, "axis": 1})
    w.layer("argmax_pairs", "ArgMax", ["pool_ave"], ["argmax_pairs"], argmax_param={"top_k": 3, "out_max_val": True})
    w.layer("bn_batch", "BatchNorm", ["pool_ave"], ["bn_batch"], batch_norm_param={"use_global_stats": False})
    w.layer("conv_rect", "Convolution", ["data"], ["conv_rect"], [_n(rng, 2, 4, 1, 3), _n(rng, 2)],
            convolution_param={"num_output": 2, "kernel_size": [1, 3], "stride": [2, 1], "pad": [0, 1]})
    w.layer("prelu_shared", "PReLU", ["conv_rect"], ["prelu_shared"], [np.array([0.2])], prelu_param={"channel_shared": True})
    w.layer("scale_span", "Scale", ["pool_max"], ["scale_span"], [_n(rng, 6, 5)], scale_param={"axis": 1, "num_axes": 2})
    w.layer("slice_eq", "Slice", ["concat"], ["half_a", "half_b"], slice_param={"axis": 1})
    return w


@dataclass(frozen=True)
class ResNetShape:
    """A ResNet of bottleneck blocks: `blocks` per stage, the first stage's `width`, an input of `size`."""

    blocks: Tuple[int, ...] = (3, 4, 6, 3)  # ResNet-50
    width: int = 64
    size: int = 224
    classes: int = 1000


def resnet_net(shape: ResNetShape = ResNetShape(), seed: int = 0) -> NetWriter:
    """A ResNet as Caffe's model zoo writes it (ResNet-50 by default): Convolution without bias,
    then in-place BatchNorm, Scale and ReLU; bottleneck blocks summed by Eltwise; random weights."""
    rng = np.random.default_rng(seed)
    w = NetWriter("resnet")
    w.input("data", (1, 3, shape.size, shape.size))
    channels = _conv_bn(w, rng, "conv1", "data", 3, shape.width, 7, 2, 3)
    w.layer("pool1", "Pooling", ["conv1"], ["pool1"], pooling_param={"pool": 0, "kernel_size": 3, "stride": 2})
    top, width = "pool1", shape.width
    for stage, count in enumerate(shape.blocks):
        for block in range(count):
            name = f"res{stage + 2}{chr(ord('a') + block)}"
            stride = 2 if block == 0 and stage > 0 else 1
            shortcut = top
            if block == 0:
                shortcut = f"{name}_branch1"
                _conv_bn(w, rng, shortcut, top, channels, width * 4, 1, stride, 0, relu=False)
            a = _conv_bn(w, rng, f"{name}_branch2a", top, channels, width, 1, stride, 0)
            b = _conv_bn(w, rng, f"{name}_branch2b", f"{name}_branch2a", a, width, 3, 1, 1)
            _conv_bn(w, rng, f"{name}_branch2c", f"{name}_branch2b", b, width * 4, 1, 1, 0, relu=False)
            w.layer(name, "Eltwise", [shortcut, f"{name}_branch2c"], [name])
            w.layer(f"{name}_relu", "ReLU", [name], [name])
            top, channels = name, width * 4
        width *= 2
    w.layer("pool5", "Pooling", [top], ["pool5"], pooling_param={"pool": 1, "global_pooling": True})
    w.layer("fc", "InnerProduct", ["pool5"], ["fc"], [_n(rng, shape.classes, channels, scale=channels ** -0.5), _n(rng, shape.classes)],
            inner_product_param={"num_output": shape.classes})
    w.layer("prob", "Softmax", ["fc"], ["prob"])
    return w


def _conv_bn(w: NetWriter, rng: np.random.Generator, name: str, bottom: str, channels: int, out: int, kernel: int, stride: int, pad: int,
             *, relu: bool = True) -> int:
    """Convolution + in-place BatchNorm + Scale (+ ReLU), weights scaled to keep activations near 1."""
    weight = _n(rng, out, channels, kernel, kernel, scale=(channels * kernel * kernel) ** -0.5)
    w.layer(name, "Convolution", [bottom], [name], [weight],
            convolution_param={"num_output": out, "kernel_size": [kernel], "stride": [stride], "pad": [pad], "bias_term": False})
    w.layer(f"bn_{name}", "BatchNorm", [name], [name], [_n(rng, out, scale=0.1), np.abs(_n(rng, out)) + 0.5, np.array([1.0])])
    w.layer(f"scale_{name}", "Scale", [name], [name], [np.abs(_n(rng, out)) + 0.5, _n(rng, out, scale=0.1)], scale_param={"bias_term": True})
    if relu:
        w.layer(f"{name}_relu", "ReLU", [name], [name])
    return out

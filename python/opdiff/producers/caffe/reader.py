"""Reading a Caffe net: the prototxt (protobuf text format) and the caffemodel (a binary
NetParameter), with the vendored caffe.proto (proto/caffe.proto), without Caffe.

The prototxt gives the structure, the caffemodel the blobs of each layer, matched by layer name
(Caffe's own rule when it copies trained weights into a net). Both may hold layers in the
deprecated V1 form (``layers { type: CONVOLUTION }``); they are read as the current form.
Fields of the prototxt that the excerpt of caffe.proto does not know (training and data-source
settings, other layer types' parameters) are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np

from opdiff.producers.caffe.layer_table import V1_TYPES
from opdiff.producers.caffe.proto import caffe_pb2

TEST_PHASE = 1
# LayerParameter fields that V1LayerParameter holds under the same name and message type.
_V1_PARAMS = ("argmax_param", "concat_param", "convolution_param", "data_param", "dropout_param", "eltwise_param",
              "inner_product_param", "lrn_param", "pooling_param", "power_param", "relu_param", "sigmoid_param",
              "softmax_param", "slice_param", "tanh_param", "transform_param", "loss_param")


class CaffeFileError(ValueError):
    """A prototxt or caffemodel that cannot be read: exit 2, the message naming the file."""


@dataclass
class CaffeNet:
    """A net's layers (current form, in prototxt order, those of the TEST phase), its declared inputs
    (NetParameter.input with their shapes, where given) and every layer's blobs by layer name."""

    name: str
    layers: List[Any]  # caffe_pb2.LayerParameter
    inputs: Dict[str, Optional[tuple[int, ...]]] = field(default_factory=dict)
    weights: Dict[str, List[np.ndarray]] = field(default_factory=dict)


def read_prototxt(path: Path) -> Any:
    """The NetParameter of a prototxt; CaffeFileError naming `path` when it is not one.

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d) / "n.prototxt"
    ...     _ = p.write_text('name: "n" layer { name: "r" type: "ReLU" bottom: "x" top: "x" }')
    ...     [layer.type for layer in read_prototxt(p).layer]
    ['ReLU']
    """
    from google.protobuf import text_format

    text = _read(path, "prototxt").decode("utf-8", errors="replace")
    net = caffe_pb2.NetParameter()
    try:
        text_format.Parse(text, net, allow_unknown_field=True)
    except (text_format.ParseError, ValueError, RecursionError) as error:
        raise CaffeFileError(f"{path}: not a Caffe prototxt ({error})") from None
    return net


def read_caffemodel(path: Path) -> Any:
    """The NetParameter of a binary caffemodel; CaffeFileError naming `path` when it is not one."""
    from google.protobuf.message import DecodeError

    data = _read(path, "caffemodel")
    try:
        return caffe_pb2.NetParameter.FromString(data)
    except (DecodeError, ValueError, RecursionError) as error:
        raise CaffeFileError(f"{path}: not a Caffe caffemodel ({type(error).__name__}: {error})") from None


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise CaffeFileError(f"{path}: no such {what}") from None
    except OSError as error:
        raise CaffeFileError(f"{path}: cannot read the {what} ({error.strerror or error})") from None


def read_net(prototxt: Path, caffemodel: Optional[Path]) -> CaffeNet:
    """The net of `prototxt` with the blobs of `caffemodel` (None: the prototxt's own, if any)."""
    structure = read_prototxt(prototxt)
    layers = [layer for layer in current_layers(structure) if in_test_phase(layer)]
    net = CaffeNet(structure.name or prototxt.stem, layers, _declared_inputs(structure, prototxt))
    weight_source = read_caffemodel(caffemodel) if caffemodel is not None else structure
    for layer in current_layers(weight_source):
        if layer.blobs:
            try:
                net.weights[layer.name] = [blob_array(blob) for blob in layer.blobs]
            except ValueError as error:
                raise CaffeFileError(f"{caffemodel or prototxt}: layer {layer.name}: {error}") from None
    return net


def current_layers(net: Any) -> List[Any]:
    """The layers of a NetParameter in the current form (V1 ``layers`` converted)."""
    return list(net.layer) + [_from_v1(old) for old in net.layers]


def _from_v1(old: Any) -> Any:
    layer = caffe_pb2.LayerParameter(name=old.name, bottom=old.bottom, top=old.top, blobs=old.blobs)
    layer.include.extend(old.include)
    layer.exclude.extend(old.exclude)
    type_name = caffe_pb2.V1LayerParameter.LayerType.Name(old.type)
    layer.type = V1_TYPES.get(type_name, type_name)
    for name in _V1_PARAMS:
        if old.HasField(name):
            getattr(layer, name).CopyFrom(getattr(old, name))
    return layer


def in_test_phase(layer: Any) -> bool:
    """Whether Caffe's TEST net holds `layer`: its include rules (if any) name the TEST phase or no
    phase, and no exclude rule names it (level and stage rules are not read)."""
    def matches(rule: Any) -> bool:
        return not rule.HasField("phase") or rule.phase == TEST_PHASE

    if layer.HasField("phase") and layer.phase != TEST_PHASE:
        return False
    if layer.include and not any(matches(rule) for rule in layer.include):
        return False
    return not any(matches(rule) for rule in layer.exclude)


def _declared_inputs(net: Any, path: Path) -> Dict[str, Optional[tuple[int, ...]]]:
    """NetParameter.input with input_shape (one each) or input_dim (four each), where given."""
    names = list(net.input)
    shapes: List[Optional[tuple[int, ...]]] = [None] * len(names)
    if net.input_shape:
        given: List[Optional[tuple[int, ...]]] = [tuple(int(d) for d in s.dim) for s in net.input_shape]
        shapes = given + shapes[len(given):]
    elif net.input_dim:
        dims = [int(d) for d in net.input_dim]
        if len(dims) != 4 * len(names):
            raise CaffeFileError(f"{path}: {len(dims)} input_dim values for {len(names)} inputs (four each)")
        shapes = [tuple(dims[4 * k:4 * k + 4]) for k in range(len(names))]
    return dict(zip(names, shapes[:len(names)]))


def blob_array(blob: Any) -> np.ndarray:
    """A BlobProto's values (float32) in its shape (``shape``, else the legacy num/channels/height/width);
    ValueError when the count does not fit the shape."""
    if blob.HasField("shape"):
        shape = tuple(int(d) for d in blob.shape.dim)
    else:
        legacy = (blob.num, blob.channels, blob.height, blob.width)
        shape = tuple(int(d) for d in legacy) if any(legacy) else (len(blob.data) or len(blob.double_data),)
    values = np.asarray(blob.data if len(blob.data) else blob.double_data, dtype=np.float32)
    expected = int(np.prod(shape, dtype=np.int64))
    if values.size != expected:
        raise ValueError(f"a blob of shape {list(shape)} holds {values.size} values")
    return values.reshape(shape)

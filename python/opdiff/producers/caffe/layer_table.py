"""Which converter runs each Caffe layer type (by the type string of the prototxt)."""

from __future__ import annotations

from typing import Callable, Dict

from opdiff.producers.caffe import layers_activation as activation
from opdiff.producers.caffe import layers_conv as conv
from opdiff.producers.caffe import layers_norm as norm
from opdiff.producers.caffe import layers_pool as pool
from opdiff.producers.caffe import layers_shape as shape
from opdiff.producers.caffe.builder import LayerContext

Converter = Callable[[LayerContext], None]

# Layers whose tops are the net's inputs: they become graph inputs, not nodes.
INPUT_TYPES = ("Input", "Data")

CONVERTERS: Dict[str, Converter] = {
    "Convolution": conv.convolution,
    "Deconvolution": conv.deconvolution,
    "InnerProduct": conv.inner_product,
    "Pooling": pool.pooling,
    "ReLU": activation.relu,
    "PReLU": activation.prelu,
    "Sigmoid": activation.simple("Sigmoid"),
    "TanH": activation.simple("Tanh"),
    "ELU": activation.elu,
    "AbsVal": activation.simple("Abs"),
    "Power": activation.power,
    "BNLL": activation.simple("Softplus"),  # log(1 + e^x), as Caffe computes it
    "Dropout": activation.simple("Identity"),
    "BatchNorm": norm.batch_norm,
    "Scale": norm.scale,
    "Bias": norm.bias,
    "LRN": norm.lrn,
    "Normalize": norm.normalize,
    "Eltwise": shape.eltwise,
    "Concat": shape.concat,
    "Slice": shape.slice_layer,
    "Split": shape.split,
    "Flatten": shape.flatten,
    "Reshape": shape.reshape,
    "Permute": shape.permute,
    "Crop": shape.crop,
    "Softmax": shape.softmax,
    "ArgMax": shape.argmax,
}

# The type names of V1LayerParameter's enum (old prototxts and caffemodels) that a converter runs.
V1_TYPES: Dict[str, str] = {
    "ABSVAL": "AbsVal", "ARGMAX": "ArgMax", "BNLL": "BNLL", "CONCAT": "Concat", "CONVOLUTION": "Convolution",
    "DATA": "Data", "DECONVOLUTION": "Deconvolution", "DROPOUT": "Dropout", "ELTWISE": "Eltwise", "FLATTEN": "Flatten",
    "INNER_PRODUCT": "InnerProduct", "LRN": "LRN", "POOLING": "Pooling", "POWER": "Power", "RELU": "ReLU",
    "SIGMOID": "Sigmoid", "SOFTMAX": "Softmax", "SPLIT": "Split", "SLICE": "Slice", "TANH": "TanH",
}


def supported_types() -> tuple[str, ...]:
    """Every layer type dump-caffe runs.

    >>> "Pooling" in supported_types() and "Input" in supported_types()
    True
    """
    return (*INPUT_TYPES, *CONVERTERS)

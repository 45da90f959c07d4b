"""The source model of ``--isolate``, by its file: a frozen TensorFlow GraphDef (``.pb``) or the
MetaGraphDef of a training step (``.meta``, as dump-tf --train-op writes it), a Caffe net
(``.prototxt``, with its ``.caffemodel``), else ONNX."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from opdiff.isolate.onnx_source import OnnxSource
from opdiff.isolate.source_graph import SourceGraph
from opdiff.isolate.source_model import IsolateInputError, load_source_model
from opdiff.producers import MissingOnnxError

TF_SUFFIXES = (".pb", ".meta")
CAFFE_SUFFIX = ".prototxt"


def load_source_graph(path: Path, threads: int = 0, weights: Optional[Path] = None) -> SourceGraph:
    """The loaded model at `path`; IsolateInputError (a ValueError: exit 2) naming the file and what
    is wrong. `threads`: the framework's CPU threads (0: its own choice); `weights`: a Caffe net's
    caffemodel (default: the one of the same stem beside the prototxt)."""
    if path.suffix.lower() in TF_SUFFIXES:
        from opdiff.isolate.tf_source import load_tf_source

        return load_tf_source(path, threads)
    try:
        if path.suffix.lower() == CAFFE_SUFFIX:
            from opdiff.isolate.caffe_source import load_caffe_source

            return load_caffe_source(path, weights, threads)
        return OnnxSource(load_source_model(path), threads)
    except MissingOnnxError as error:
        raise IsolateInputError(f"{path}: --isolate: {error}") from None

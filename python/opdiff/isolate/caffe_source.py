"""The Caffe source model of ``--isolate MODEL.prototxt``: the net converted to ONNX as dump-caffe
converts it (producers/caffe), each layer's nodes run by ONNX Runtime as onnx_source.py runs an
ONNX model's. A fusion rule's original op names are layer names; a layer may be several ONNX nodes,
and its tops are the tensors dump-caffe writes as its goldens (in-place tops included)."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, Mapping, Optional, Sequence, Tuple

import numpy as np

from opdiff.isolate.decode import Dumped
from opdiff.isolate.onnx_source import OnnxSource
from opdiff.isolate.source_model import IsolateInputError, index_model
from opdiff.isolate.subgraph import extract_subgraph
from opdiff.producers.caffe.convert import ConvertedNet


class CaffeSource(OnnxSource):
    """A SourceGraph (source_graph.py) over a converted Caffe net."""

    runtime = "ONNX Runtime (Caffe net converted)"

    def __init__(self, path: Path, converted: ConvertedNet, threads: int = 0) -> None:
        super().__init__(index_model(path, converted.model), threads)
        self.converted = converted
        self._tops: Dict[Tuple[str, int], str] = {(o.op, o.index): t for t, o in converted.origins.items()}
        self.inputs_by_data_op = {op: tensor for tensor, op in converted.input_ops.items()}

    def has_node(self, name: str) -> bool:
        return name in self.converted.layer_nodes

    def tensor_of(self, origin_name: str, output_index: int) -> Optional[str]:
        return self._tops.get((origin_name, output_index))

    def node_inputs(self, name: str) -> Tuple[str, ...]:
        """The tensors layer `name` reads from outside itself (its bottoms, then its weights)."""
        nodes = [self.model.nodes[n] for n in self.converted.layer_nodes.get(name, [])]
        own = {t for node in nodes for t in node.output}
        return tuple(dict.fromkeys(t for node in nodes for t in node.input if t and t not in own))

    def local_golden(self, original: Tuple[str, ...], feeds: Mapping[str, Dumped], outputs: Sequence[str]) -> Dict[str, np.ndarray]:
        nodes = {id(self.model.nodes[n]) for layer in original for n in self.converted.layer_nodes.get(layer, [])}
        subgraph = extract_subgraph(self.model, nodes, feeds.keys(), outputs)
        return dict(zip(subgraph.outputs, self._run(subgraph, feeds)))


def load_caffe_source(path: Path, weights: Optional[Path], threads: int = 0) -> CaffeSource:
    """The net of `path` with `weights` (default: the .caffemodel of the same stem beside it);
    IsolateInputError naming the file that cannot be read or the layer that cannot be run."""
    from opdiff.producers.caffe.dump import load_caffe, weights_beside

    weights = weights if weights is not None else weights_beside(path)
    if weights is None:
        raise IsolateInputError(f"{path}: --isolate: no {path.with_suffix('.caffemodel').name} beside it: give --isolate-weights FILE")
    try:
        model = load_caffe(path, weights)
    except ValueError as error:  # CaffeFileError, CaffeLayerError: they name the file or the layer
        raise IsolateInputError(f"--isolate: {error}") from None
    return CaffeSource(path, model.converted, threads)

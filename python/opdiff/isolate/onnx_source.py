"""The ONNX source model of ``--isolate``: an op's subgraph of the model run by ONNX Runtime, one
session per subgraph signature (sessions.py), graph optimisation off."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

import numpy as np

from opdiff.isolate.decode import Dumped
from opdiff.isolate.sessions import SessionCache
from opdiff.isolate.source_model import SourceModel
from opdiff.isolate.subgraph import Subgraph, extract_subgraph, subgraph_model
from opdiff.producers.onnx.support import numpy_dtype_of, own_numpy_dtype, require_onnx


class OnnxSource:
    """A SourceGraph (source_graph.py) over a loaded ONNX model."""

    runtime = "ONNX Runtime"

    def __init__(self, model: SourceModel, threads: int = 0) -> None:
        self.model = model
        self.path: Path = model.path
        self.inputs_by_data_op = model.inputs_by_data_op
        self._sessions = SessionCache(threads)
        self._weights: Dict[str, np.ndarray] = {}

    def has_node(self, name: str) -> bool:
        return name in self.model.nodes

    def tensor_of(self, origin_name: str, output_index: int) -> Optional[str]:
        return self.model.tensor_of(origin_name, output_index)

    def node_inputs(self, name: str) -> Tuple[str, ...]:
        return tuple(self.model.nodes[name].input)

    def weight(self, tensor: str) -> Optional[np.ndarray]:
        if tensor not in self.model.initializers:
            return None
        if tensor not in self._weights:
            self._weights[tensor] = _initializer_array(self.model.initializers[tensor])
        return self._weights[tensor]

    def local_golden(self, original: Tuple[str, ...], feeds: Mapping[str, Dumped], outputs: Sequence[str]) -> Dict[str, np.ndarray]:
        nodes = {id(self.model.nodes[name]) for name in original}
        subgraph = extract_subgraph(self.model, nodes, feeds.keys(), outputs)
        return dict(zip(subgraph.outputs, self._run(subgraph, feeds)))

    @property
    def sessions(self) -> int:
        return self._sessions.count

    def _run(self, subgraph: Subgraph, dumped: Mapping[str, Dumped]) -> Sequence[np.ndarray]:
        feeds = {f"f{k}": self._feed(tensor, dumped[tensor]) for k, tensor in enumerate(subgraph.feeds)}
        if not subgraph.nodes:  # the op's outputs are its inputs (a Cast or Identity of the model)
            return [feeds[f"f{subgraph.feeds.index(t)}"] for t in subgraph.outputs]
        for k, name in enumerate(subgraph.weights):
            feeds[f"w{k}"] = self.weight(name)  # type: ignore[assignment]  # every weight is an initializer
        return self._sessions.run(subgraph.signature, lambda: subgraph_model(self.model, subgraph), feeds)

    def _feed(self, tensor: str, dumped: Dumped) -> np.ndarray:
        value = dumped.to_numpy()
        elem = self.model.elem_types.get(tensor)
        wanted = numpy_dtype_of(elem) if elem else None
        if value.dtype.kind == "f" or str(value.dtype).startswith(("bfloat", "float8")):
            return value.astype(np.float32 if wanted is None or wanted.kind != "f" else wanted)
        return value.astype(wanted) if wanted is not None and wanted != value.dtype else value


def _initializer_array(init: Any) -> np.ndarray:
    """An initializer's values: one of numpy's own types straight from its raw bytes (read-only, no
    copy beyond protobuf's; as onnx.numpy_helper reads them), anything else through onnx's
    converter (importing onnx whole)."""
    own = own_numpy_dtype(init.data_type)
    if own is not None and init.raw_data and init.data_location != type(init).EXTERNAL and not init.HasField("segment"):
        return np.frombuffer(init.raw_data, dtype=own.newbyteorder("<")).reshape(tuple(init.dims))
    onnx, _ = require_onnx()
    converted: np.ndarray = onnx.numpy_helper.to_array(init)
    return converted

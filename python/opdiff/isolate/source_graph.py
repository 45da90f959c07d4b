"""What ``--isolate`` needs of a source model, whatever its framework: which nodes it has, which
tensor a fusion rule's origin names, a node's inputs and constant weights, and the local golden of
an op (its original nodes re-run from the tensors fed). The ONNX model (onnx_source.py, ONNX
Runtime) and the frozen TensorFlow graph (tf_source.py, a tf.compat.v1 Session) implement it."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, Mapping, Optional, Protocol, Sequence, Tuple

import numpy as np

from opdiff.isolate.decode import Dumped


class SourceGraph(Protocol):
    """A loaded source model. Tensors are named as the framework names them (ONNX: the tensor's
    name; TensorFlow: ``op:k``)."""

    path: Path
    runtime: str  # what runs the local golden, as the console names it
    inputs_by_data_op: Dict[str, str]  # Data op name -> graph input tensor

    def has_node(self, name: str) -> bool:
        """Whether `name` (an original op name of a fusion rule) is a node of the model."""

    def tensor_of(self, origin_name: str, output_index: int) -> Optional[str]:
        """The tensor a fusion rule's origin (``_datadump_origin_name``, output index) names; None
        when it names none, or names a constant (a weight: the model's own value stands for it)."""

    def node_inputs(self, name: str) -> Tuple[str, ...]:
        """The data inputs of node `name`, in order ("" for an omitted optional input)."""

    def weight(self, tensor: str) -> Optional[np.ndarray]:
        """The constant value of `tensor` (a weight of the model), None when it is not one."""

    def local_golden(self, original: Tuple[str, ...], feeds: Mapping[str, Dumped], outputs: Sequence[str]) -> Dict[str, np.ndarray]:
        """`outputs` computed by the nodes `original` (and constants) from `feeds` (tensor -> the
        dumped tensor that stands for it); NotIsolated (isolate.subgraph) with the reason where it cannot."""

    @property
    def sessions(self) -> int:
        """How many framework sessions it built."""

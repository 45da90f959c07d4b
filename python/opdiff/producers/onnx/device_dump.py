"""Writing a run of a rewritten graph as device dump files (the Ascend binary format, through
``opdiff.write_dump``), one file per node holding its inputs and outputs.

Files are named ``{op_type}.{escaped node}.{task}.{stream}.{timestamp}``: task = position of the node
in the graph (1-based), stream 0, and timestamps increasing by one microsecond per node from the
run's timestamp, so that time order is execution order, as on a device.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple

import numpy as np

from opdiff.conventions.dump_names import device_file_name
from opdiff.dumps.writer import Tensor, write_dump
from opdiff.producers.file_names import FolderNames
from opdiff.producers.onnx.lineage import Lineage
from opdiff.producers.onnx.support import OnnxModel, OnnxTensor

STREAM_ID = 0


class DeviceLayout(str, Enum):
    """How 4-D float activations are stored: as they are (ND), or in the NPU's 5-D NC1HWC0."""

    ND = "ND"
    NC1HWC0 = "NC1HWC0"


@dataclass(frozen=True)
class DeviceFile:
    """One written dump file and the node it holds."""

    node: str
    op_type: str
    path: Path


def _stored(array: np.ndarray, layout: DeviceLayout, origin_name: str = "") -> Tensor:
    if layout is DeviceLayout.NC1HWC0 and array.ndim == 4 and array.dtype.kind == "f":
        return Tensor(array, layout="NC1HWC0", logical_format="NCHW", origin_name=origin_name)
    return Tensor(array, layout="ND", origin_name=origin_name)


def write_device_dumps(
    folder: Path,
    rewritten: OnnxModel,
    tensors: Mapping[str, np.ndarray],
    lineage: Optional[Lineage],
    timestamp: int,
    layout: DeviceLayout = DeviceLayout.ND,
) -> Tuple[List[DeviceFile], List[str]]:
    """Write one dump file per node of `rewritten` into `folder`; returns the files and notes on
    nodes that could not be written."""
    from onnx import numpy_helper

    folder.mkdir(parents=True, exist_ok=True)
    names = FolderNames(folder, timestamp)
    initializers: Dict[str, OnnxTensor] = {init.name: init for init in rewritten.graph.initializer}
    constants: Dict[str, np.ndarray] = {}
    written: List[DeviceFile] = []
    notes: List[str] = []
    for position, node in enumerate(rewritten.graph.node):
        inputs = []
        for tensor in node.input:
            if not tensor:
                continue
            if tensor in tensors:
                inputs.append(tensors[tensor])
            else:
                if tensor not in constants:
                    constants[tensor] = numpy_helper.to_array(initializers[tensor])
                inputs.append(constants[tensor])
        outputs = [t for t in node.output if t]
        origins = lineage.nodes[node.name].output_origins if lineage is not None else (None,) * len(outputs)
        stamp = timestamp + position
        target = names.path_for(device_file_name(node.op_type, node.name, position + 1, STREAM_ID, stamp))
        try:
            write_dump(
                target,
                node.name,
                inputs=[_stored(np.asarray(a), layout) for a in inputs],
                outputs=[_stored(np.asarray(tensors[t]), layout, origin.op if origin else "") for t, origin in zip(outputs, origins)],
                dump_time=stamp,
            )
        except (ValueError, KeyError) as error:
            notes.append(f"node {node.name} ({node.op_type}) not dumped: {error}")
            continue
        written.append(DeviceFile(node.name, node.op_type, target))
    names.write_mapping()
    return written, notes

"""Writing tfdbg dumps as TensorFlow lays them out, without TensorFlow: for tests, fuzz seeds and
the bench (v1: a root of ``run_{µs}_{n}`` folders; v2: ``.metadata``, ``.execution`` and
``.graph_execution_traces`` streams). Tensors go as ``tensor_content``, as tfdbg writes them.

>>> import tempfile, numpy as np
>>> root = Path(tempfile.mkdtemp())
>>> run = write_v1_run(root, 0, {("dense/MatMul", 0): np.ones((2, 2), np.float32)}, ["train"])
>>> from opdiff.dumps.tfdbg.roots import read_tfdbg_root
>>> [t.op_name for t in read_tfdbg_root(root).runs[0].tensors]
['dense/MatMul']
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import BinaryIO, Dict, Mapping, Sequence, Tuple

import numpy as np

from opdiff.dumps.tfdbg import tfdbg_pb2 as pb
from opdiff.dumps.tfdbg.tensors import NUMPY_DTYPES
from opdiff.dumps.tfdbg.tfrecord import frame_record

Tensors = Mapping[Tuple[str, int], np.ndarray]  # (op name, output slot) -> value
STAMP = 1_700_000_000_000_000  # µs: the first timestamp written
DEVICE_FOLDER = "_tfdbg_device_,job_localhost,replica_0,task_0,device_GPU_0"
DEBUG_OP = "DebugIdentity"
_DTYPE_NUMBERS: Dict[str, int] = {}
for _number, _dtype in NUMPY_DTYPES.items():
    _DTYPE_NUMBERS.setdefault(_dtype.str + _dtype.name, _number)


def tensor_proto(array: np.ndarray) -> pb.TensorProto:
    """`array` as a TensorProto holding its bytes in ``tensor_content``."""
    array = np.ascontiguousarray(array)
    number = _DTYPE_NUMBERS.get(array.dtype.str + array.dtype.name)
    if number is None:
        raise ValueError(f"no TensorFlow data type for {array.dtype}")
    proto = pb.TensorProto(dtype=number, tensor_content=array.tobytes())  # type: ignore[arg-type]
    for size in array.shape:
        proto.tensor_shape.dim.add(size=size)
    return proto


def tensor_event(op_name: str, slot: int, array: np.ndarray, stamp: int) -> bytes:
    """A v1 tensor file's bytes: an Event whose summary value holds the tensor."""
    event = pb.Event(wall_time=float(stamp))
    value = event.summary.value.add(node_name=f"{op_name}:{slot}:{DEBUG_OP}", tag=op_name)
    value.tensor.CopyFrom(tensor_proto(array))
    value.metadata.plugin_data.plugin_name = "debugger"
    return event.SerializeToString()


def write_v1_run(root: Path, index: int, tensors: Tensors, targets: Sequence[str], *,
                 outputs: Sequence[str] = (), stamp: int = STAMP) -> Path:
    """Run folder `index` of a v1 root (its core metadata naming the fetches, one file a tensor)."""
    start = stamp + index * 1_000_000
    run = root / f"run_{start}_{index}"
    device = run / DEVICE_FOLDER
    device.mkdir(parents=True, exist_ok=True)
    metadata = {"global_step": -1, "session_run_index": index + 1, "executor_step_index": 0, "input_names": [],
                "output_names": list(outputs), "target_nodes": list(targets)}
    event = pb.Event(wall_time=float(start))
    event.log_message.message = json.dumps(metadata)
    (run / f"_tfdbg_core_metadata_sessionrun{index + 1:014d}_{start}").write_bytes(event.SerializeToString())
    for offset, ((op_name, slot), array) in enumerate(tensors.items()):
        at = start + 10 + offset
        path = device / f"{op_name}_{slot}_{DEBUG_OP}_{at}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(tensor_event(op_name, slot, array, at))
    return run


def _write_event(handle: BinaryIO, event: pb.DebugEvent) -> None:
    handle.write(frame_record(event.SerializeToString()))


def write_v2_root(root: Path, steps: Sequence[Tensors], *, function: str = "__inference_train_step_11",
                  prefix: str = "tfdbg_events.1700000000.host", stamp: int = STAMP) -> Path:
    """A v2 root: one function execution per step, each after its graph's FULL_TENSOR traces."""
    root.mkdir(parents=True, exist_ok=True)
    base = root / prefix
    graph_id = "0f0f0f0f-graph"
    metadata = pb.DebugEvent(wall_time=stamp / 1e6)
    metadata.debug_metadata.tensorflow_version = "opdiff writer"
    metadata.debug_metadata.file_version = "debug.Event:1"
    with open(f"{base}.metadata", "wb") as handle:
        _write_event(handle, metadata)
    with open(f"{base}.graph_execution_traces", "wb") as traces, open(f"{base}.execution", "wb") as executions:
        clock = stamp
        for tensors in steps:
            for (op_name, slot), array in tensors.items():
                clock += 10
                event = pb.DebugEvent(wall_time=clock / 1e6)
                trace = event.graph_execution_trace
                trace.tfdbg_context_id, trace.op_name, trace.output_slot = graph_id, op_name, slot
                trace.tensor_debug_mode = pb.FULL_TENSOR
                trace.tensor_proto.CopyFrom(tensor_proto(array))
                _write_event(traces, event)
            clock += 1000
            execution = pb.DebugEvent(wall_time=clock / 1e6)
            execution.execution.op_type, execution.execution.graph_id = function, graph_id
            execution.execution.tensor_debug_mode = pb.FULL_TENSOR
            _write_event(executions, execution)
    for suffix in (".graphs", ".source_files", ".stack_frames"):
        open(f"{base}{suffix}", "wb").close()
    return root


def file_bytes(path: Path) -> int:
    """Bytes of every file under `path` (the bench's measure)."""
    return sum(os.path.getsize(os.path.join(folder, name)) for folder, _, names in os.walk(path) for name in names)

"""Fuzz targets of the tfdbg readers (opdiff.dumps.tfdbg): v1 tensor files (an Event proto each)
and v2 TFRecord streams of DebugEvent protos. A check passes when the reader read the input or
refused it with its own reasons (TensorDamaged, TensorSkipped, a problem listed for the stream);
where it reads a tensor, the array has the shape and the dtype the proto declares."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional

import ml_dtypes
import numpy as np
from google.protobuf.message import DecodeError
from scratch import Scratch  # bench/fuzz/scratch.py (bench/fuzz is first on sys.path)

from opdiff.dumps.tfdbg import tfdbg_pb2 as pb
from opdiff.dumps.tfdbg.roots import read_tensor, read_tfdbg_root
from opdiff.dumps.tfdbg.tensors import NUMPY_DTYPES, TensorDamaged, TensorSkipped, to_numpy
from opdiff.dumps.tfdbg.writer import tensor_event, write_v2_root

_REFUSALS = (TensorDamaged, TensorSkipped)


def _arrays() -> Dict[str, np.ndarray]:
    rng = np.random.default_rng(5)
    return {"f4": rng.standard_normal((2, 3)).astype(np.float32), "f2": rng.standard_normal(4).astype(np.float16),
            "bf16": rng.standard_normal(3).astype(ml_dtypes.bfloat16), "c8": (rng.standard_normal(2) + 1j).astype(np.complex64),
            "i8": np.arange(5, dtype=np.int64), "b": np.array([True, False]), "scalar": np.float64(2.5).reshape(())}


def _typed_seed() -> bytes:
    """A tensor in typed fields: half_val with one value broadcast to the shape."""
    proto = pb.TensorProto(dtype=pb.DT_HALF, half_val=[int(np.float16(1.5).view(np.uint16))])
    proto.tensor_shape.dim.add(size=6)
    event = pb.Event(wall_time=1.0)
    event.summary.value.add(node_name="c:0:DebugIdentity").tensor.CopyFrom(proto)
    return event.SerializeToString()


def _checked(array: np.ndarray, proto: Optional[pb.TensorProto]) -> None:
    """The array has the proto's shape and dtype, and protobuf's own reading (to_numpy) gives the
    same bytes as the wire-level one (wire.tensor_span) the readers take first."""
    if proto is None:
        return
    shape = tuple(dim.size for dim in proto.tensor_shape.dim)
    number = proto.dtype - 100 if proto.dtype > 100 else proto.dtype
    if array.shape != shape or array.dtype != NUMPY_DTYPES[number]:
        raise AssertionError(f"read {array.dtype}{list(array.shape)}; the proto says {proto.dtype}{list(shape)}")
    try:
        theirs = to_numpy(proto)
    except _REFUSALS as error:
        raise AssertionError(f"read from the wire, but protobuf's reading refuses: {error}") from None
    if theirs.tobytes() != array.tobytes():
        raise AssertionError("the wire-level and the protobuf reading differ")


def v1_seeds(folder: Path) -> List[bytes]:
    seeds = [tensor_event(f"op_{name}", 0, array, 1_700_000_000_000_000) for name, array in _arrays().items()]
    return seeds + [_typed_seed()]


def check_v1(data: bytes) -> None:
    """One mutated tensor file in a run folder: the root read, the tensor read or refused."""
    run = Scratch.fresh("v1") / "run_1700000000000000_0"
    device = run / "_tfdbg_device_,job_localhost,replica_0,task_0,device_GPU_0" / "block"
    device.mkdir(parents=True)
    (device / "op_0_DebugIdentity_1700000000000001").write_bytes(data)
    (ref,) = read_tfdbg_root(run.parent).runs[0].tensors
    try:
        array = read_tensor(ref)
    except _REFUSALS:
        return
    try:
        event = pb.Event.FromString(data)
    except DecodeError:
        return  # the tensor reads; protobuf also refuses what lies past it (checked by the v1 seeds' own reads)
    _checked(array, event.summary.value[0].tensor)


def v2_seeds(folder: Path) -> List[bytes]:
    steps = [{(f"op_{name}", 0): array for name, array in _arrays().items()}, {("op_f4", 0): _arrays()["f4"] * 2}]
    root = write_v2_root(folder / "v2", steps)
    return [path.read_bytes() for path in sorted(root.iterdir()) if path.suffix == ".graph_execution_traces"]


def check_v2(data: bytes) -> None:
    """A mutated .graph_execution_traces stream beside a sound .metadata: the root read (a stream
    that cannot be framed is a problem it lists), every tensor read or refused."""
    root = Scratch.fresh("v2")
    write_v2_root(root, [{("a", 0): np.zeros(1, np.float32)}], prefix="events")
    (root / "events.graph_execution_traces").write_bytes(data)
    dump = read_tfdbg_root(root)
    for run in dump.runs:
        for ref in run.tensors:
            try:
                array = read_tensor(ref)
            except _REFUSALS:
                continue
            _checked(array, _trace_proto(ref.path, ref.offset))


def _trace_proto(path: str, offset: int) -> Optional[pb.TensorProto]:
    from opdiff.dumps.tfdbg.tfrecord import read_record_at

    with open(path, "rb") as handle:
        record = read_record_at(handle, offset)
    try:
        return pb.DebugEvent.FromString(record.data).graph_execution_trace.tensor_proto
    except DecodeError:
        return None

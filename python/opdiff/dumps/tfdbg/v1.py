"""tfdbg v1 dump roots (``DumpingDebugWrapperSession``, ``LocalCLIDebugWrapperSession``): a root of
``run_{µs}_{n}/`` folders, one such folder, or a folder of ``_tfdbg_device_*`` folders (one run).

Inside a run folder, ``_tfdbg_core_metadata_*`` is an Event whose log message is JSON naming the
run's fetches (``output_names``: tensors, ``target_nodes``: ops) and ``session_run_index``. Each
device folder holds one file per tensor, ``{node path}_{slot}_{debug op}_{µs}``, the node path's
``/`` as sub-folders; the file is an Event whose summary value holds the TensorProto. A TF 2.x
session dumps a fed placeholder ``x`` as node ``_arg_x_0_{n}``: that is x's tensor.

Steps: the runs whose fetches include those most runs made (the training op, or the model's
outputs), numbered from 0 in time order; the initialiser's run and other odd ones are listed, not
counted (model.number_steps)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import FrozenSet, List, Optional, Tuple

import numpy as np

from opdiff.dumps.tfdbg import tfdbg_pb2 as pb
from opdiff.dumps.tfdbg.detect import RUN_FOLDER
from opdiff.dumps.tfdbg.model import Run, TensorRef, TfdbgRoot, number_steps
from opdiff.dumps.tfdbg.tensors import TensorDamaged, span_to_numpy, to_numpy
from opdiff.dumps.tfdbg.wire import TensorSpan, submessage, tensor_span

DEVICE_PREFIX = "_tfdbg_device_"
CORE_METADATA_PREFIX = "_tfdbg_core_metadata_"
TENSOR_FILE = re.compile(r"^(?P<node>.+)_(?P<slot>\d+)_(?P<debug_op>[A-Za-z]\w*?)_(?P<timestamp>\d+)$")
FED_PLACEHOLDER = re.compile(r"^_arg_(?P<name>.+)_0_\d+$")
# A v1 tensor file holds one tensor; a larger file is not one.
MAX_FILE_BYTES = 1 << 34


def read_v1_root(path: Path) -> TfdbgRoot:
    """The runs of a v1 root, in time order, with their steps numbered."""
    run_folders = _run_folders(path)
    runs = [_read_run(folder) for folder in run_folders]
    signatures: List[FrozenSet[str]] = [frozenset(fetches) for fetches, _ in runs]
    numbers = number_steps(signatures)
    built = tuple(Run(number, folder.name, tuple(fetches), step, tensors[0], tensors[1])
                  for number, (folder, (fetches, tensors), step) in enumerate(zip(run_folders, runs, numbers)))
    rule = "v1: the session.run calls whose fetches include those most runs made"
    return TfdbgRoot(path, 1, built, rule=rule)


def _run_folders(path: Path) -> List[Path]:
    if RUN_FOLDER.match(path.name) or any(name.startswith("_tfdbg_") for name in os.listdir(path)):
        return [path]
    folders = [path / name for name in os.listdir(path) if RUN_FOLDER.match(name) and (path / name).is_dir()]
    return sorted(folders, key=_run_order)


def _run_order(folder: Path) -> Tuple[int, int, int]:
    index = _core_metadata(folder).get("session_run_index")
    match = RUN_FOLDER.match(folder.name)
    numbers = (int(match[1]), int(match[2])) if match else (0, 0)
    return (index if isinstance(index, int) else numbers[1], numbers[0], numbers[1])


def _core_metadata(folder: Path) -> dict:  # type: ignore[type-arg]
    for name in sorted(os.listdir(folder)):
        if name.startswith(CORE_METADATA_PREFIX):
            try:
                event = pb.Event.FromString((folder / name).read_bytes())
                found = json.loads(event.log_message.message)
            except (OSError, ValueError):
                return {}
            return found if isinstance(found, dict) else {}
    return {}


def _read_run(folder: Path) -> Tuple[List[str], Tuple[Tuple[TensorRef, ...], Tuple[Tuple[str, str], ...]]]:
    metadata = _core_metadata(folder)
    # a training run's op is a target node; an inference run fetches output tensors
    fetches = [str(name) for name in metadata.get("target_nodes") or metadata.get("output_names") or []]
    tensors: List[TensorRef] = []
    problems: List[Tuple[str, str]] = []
    for device in sorted(os.listdir(folder)):
        if device.startswith(DEVICE_PREFIX) and (folder / device).is_dir():
            _index_device(folder / device, tensors, problems)
    tensors.sort(key=lambda ref: (ref.timestamp, ref.op_name, ref.output_slot))
    return fetches, (tuple(tensors), tuple(problems))


def _index_device(device: Path, tensors: List[TensorRef], problems: List[Tuple[str, str]]) -> None:
    for folder, subfolders, names in os.walk(device):
        subfolders.sort()
        relative = os.path.relpath(folder, device)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        for name in names:
            if name.startswith("_tfdbg_") and not prefix:
                continue  # the graph's hash file and other records of the debugger itself
            ref = tensor_ref(os.path.join(folder, name), prefix + name)
            if isinstance(ref, str):
                problems.append((os.path.join(folder, name), ref))
            else:
                tensors.append(ref)


def tensor_ref(path: str, relative_name: str) -> TensorRef | str:
    """The tensor a file's path names, or why it names none.

    >>> tensor_ref("d/dense/MatMul_0_DebugIdentity_17", "dense/MatMul_0_DebugIdentity_17").op_name
    'dense/MatMul'
    >>> tensor_ref("d/_arg_x_0_1_0_DebugIdentity_17", "_arg_x_0_1_0_DebugIdentity_17").op_name
    'x'
    """
    match = TENSOR_FILE.match(relative_name)
    if match is None:
        return "name is not {node}_{slot}_{debug op}_{timestamp} of a tfdbg v1 tensor file"
    if match["debug_op"] != "DebugIdentity":
        return f"a {match['debug_op']} summary, not the tensor (only DebugIdentity dumps are compared)"
    node = match["node"]
    fed = FED_PLACEHOLDER.match(node)
    op_name = fed["name"] if fed else node
    return TensorRef(op_name, int(match["slot"]), int(match["timestamp"]), path, dumped_name=node if fed else "")


def read_v1_tensor(ref: TensorRef) -> np.ndarray:
    """The array of one v1 tensor file. TensorDamaged (the reason) for a file that is not one
    tfdbg wrote whole; TensorSkipped for strings, resources and variants; OSError as raised."""
    size = os.path.getsize(ref.path)
    if size > MAX_FILE_BYTES:
        raise TensorDamaged(f"{size} bytes: too large for one tensor file")
    with open(ref.path, "rb") as handle:
        data = handle.read()
    return tensor_of_event(data)


def tensor_of_event(data: bytes) -> np.ndarray:
    """The tensor of a serialized v1 Event (its first summary value's tensor): a view of `data`
    where its tensor_content can be found on the wire (wire.tensor_span), else through protobuf."""
    span = _located(data)
    if span is not None:
        return span_to_numpy(data, span)
    try:
        event = pb.Event.FromString(data)
    except Exception as error:  # protobuf's DecodeError, and what a hostile varint raises
        raise TensorDamaged(f"not an Event proto ({type(error).__name__}: {error})") from None
    if not event.HasField("summary") or not event.summary.value or not event.summary.value[0].HasField("tensor"):
        raise TensorDamaged("an Event without a summary tensor (a damaged or foreign file)")
    return to_numpy(event.summary.value[0].tensor)


_EVENT_FIELDS, _SUMMARY_FIELDS = frozenset({1, 2, 5}), frozenset({1})  # wall_time, step, summary; value
_VALUE_FIELDS = frozenset({1, 7, 8, 9})  # tag, node_name, tensor, metadata


def _located(data: bytes) -> Optional[TensorSpan]:
    try:
        summary = submessage(data, 0, len(data), 5, _EVENT_FIELDS)
        value = submessage(data, *summary, 1, _SUMMARY_FIELDS, _SUMMARY_FIELDS) if summary else None  # value[0]
        tensor = submessage(data, *value, 8, _VALUE_FIELDS) if value else None
    except IndexError:
        return None
    return tensor_span(data, *tensor) if tensor else None


def device_name(folder_name: str) -> Optional[str]:
    """``_tfdbg_device_,job_localhost,replica_0,task_0,device_GPU_0`` -> the TF device name.

    >>> device_name("_tfdbg_device_,job_localhost,replica_0,task_0,device_GPU_0")
    '/job:localhost/replica:0/task:0/device:GPU:0'
    """
    if not folder_name.startswith(DEVICE_PREFIX):
        return None
    parts = folder_name[len(DEVICE_PREFIX):].split(",")
    return "".join("/" + part.replace("_", ":", 1) if part.count("_") == 1 else "/" + part.replace("_", ":")
                   for part in parts if part)

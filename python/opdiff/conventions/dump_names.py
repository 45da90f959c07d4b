"""Dump and golden file names, composed and parsed in one place (docs/reference/reference-tool.md §2),
escaping included: the device and golden writers, the test and demo writers and discovery all read
them from here.

NPU dump files are named ``{op_type}.{op_name}.{task_id}.{stream_id}.{timestamp}`` (5 fields) or, for
FFTS+ tasks, with ``.{task_type}.{context_id}.{thread_id}.{device_id}`` appended (9 fields). Golden
files are ``{op_name}.{output_index}.{timestamp}.npy``. Op types and names are escaped: '.', '/',
'\\' and ' ' become '_'.

>>> name = device_file_name("Conv2D", "res2/conv.0", 3, 1, 1700000000000001)
>>> name, parse_npu_dump_name(name).op_name
('Conv2D.res2_conv_0.3.1.1700000000000001', 'res2_conv_0')
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Optional, Union

PathLike = Union[str, "os.PathLike[str]"]

_NPU_NAME = re.compile(
    r"^(?P<op_type>[A-Za-z0-9_-]+)\.(?P<op_name>[A-Za-z0-9_-]+)\.(?P<task>[0-9]+)(?:\.(?P<stream>[0-9]+))?"
    r"\.(?P<timestamp>[0-9]{1,255})"
    r"(?:\.(?P<task_type>[0-9]+)\.(?P<context>[0-9]+)\.(?P<thread>[0-9]+)\.(?P<device>[0-9]+))?$"
)
_GOLDEN_NAME = re.compile(r"^(?P<op_name>[.A-Za-z0-9_-]+)\.(?P<index>[0-9]+)\.(?P<timestamp>[0-9]{1,255})\.npy$")

# The op type and name of the device's Opdebug record dumps (Opdebug.Node_OpDebug.{task}.{stream}.{ts}).
OPDEBUG_OP_TYPE = "Opdebug"
OPDEBUG_OP_NAME = "Node_OpDebug"
_LXSLICE_ANY = re.compile(r"_lxslice[0-9]+")
_LXSLICE_TAIL = re.compile(r"_lxslice[0-9]+$")
_SGT_GRAPH = re.compile(r"^.*sgt_graph_[0-9]+_")
# The characters the device and golden writers replace with "_" in the op names of file names.
_FILE_NAME_ESCAPES = re.compile(r"[./\\ ]")

TASK_TYPES = {0: "AICORE", 1: "AICPU", 2: "DEBUG", 3: "HCCL", 4: "FFTSPLUS"}


@dataclass(frozen=True)
class NpuDumpName:
    """The fields of an NPU dump file name. ``op_name`` is as the device wrote it (escaped: '.', '/',
    '\\' and ' ' became '_'); ``key`` is the op name after FFTS+ slice post-processing. ``path`` is
    a plain string (building 100k Path objects would dominate indexing)."""

    path: str
    op_type: str
    op_name: str
    key: str
    task_id: int
    stream_id: Optional[int]
    timestamp: int
    task_type: Optional[int] = None
    context_id: Optional[int] = None
    thread_id: Optional[int] = None
    device_id: Optional[int] = None

    @property
    def is_opdebug_record(self) -> bool:
        """An ``Opdebug.Node_OpDebug.*`` file: the device's overflow records, not an op's tensors
        (read by opdiff.dumps.opdebug)."""
        return self.op_type == OPDEBUG_OP_TYPE and self.op_name == OPDEBUG_OP_NAME

    @property
    def is_ffts_auto(self) -> bool:
        """An FFTS+ automatic-mode slice (one file per thread)."""
        return self.task_type == 4 and "_lxslice" not in self.op_name

    @property
    def manual_slice(self) -> Optional[int]:
        """The slice number of an FFTS+ manual-mode file (``_lxslice<N>`` at the end of the name)."""
        match = _LXSLICE_TAIL.search(self.op_name)
        return int(match.group(0)[len("_lxslice") :]) if match else None


@dataclass(frozen=True)
class GoldenName:
    """The fields of a golden ``.npy`` file name; ``key`` is ``"{op_name}.{output_index}"``."""

    path: str
    op_name: str
    output_index: int
    timestamp: int

    @property
    def key(self) -> str:
        return f"{self.op_name}.{self.output_index}"


def escape_op_name(name: str) -> str:
    """An op name as it appears in file names (the device and golden writers replace these)."""
    return _FILE_NAME_ESCAPES.sub("_", name)


def slice_key(op_name: str, with_fusion_rule: bool) -> Optional[str]:
    """The op a (possibly sliced) file belongs to, per §2.1; None when the name cannot be resolved.

    >>> slice_key("conv1_lxslice0", with_fusion_rule=False)
    'conv1'
    >>> slice_key("sgt_graph_0_conv1_lxslice3", with_fusion_rule=False)
    'conv1'
    >>> slice_key("a_lxslice1_b_lxslice2", with_fusion_rule=True)
    'a_b'
    """
    if "_lxslice" not in op_name and "sgt_graph_" not in op_name:
        return op_name  # the common case: nothing to strip (saves two regex passes per file)
    if with_fusion_rule and "_lxslice" in op_name:
        op_name = _LXSLICE_ANY.sub("", op_name)
    else:
        op_name = _SGT_GRAPH.sub("", _LXSLICE_TAIL.sub("", op_name))
    return None if "_lxslice" in op_name else op_name


def parse_npu_dump_name(path: PathLike, *, with_fusion_rule: bool = True, real_name: Optional[str] = None,
                        slices_apart: bool = False) -> Optional[NpuDumpName]:
    """The fields of an NPU dump file name, or None when the name is not one. With `slices_apart`
    (``-ffts``) the op is the name as written: an FFTS+ manual-mode slice (``_lxslice<N>``) or an
    ``sgt_graph_`` name is an op of its own, not a part of its op.

    >>> n = parse_npu_dump_name("Conv2D.conv1_Conv2D.5.1.1700000000000001")
    >>> n.op_type, n.op_name, n.task_id, n.stream_id, n.timestamp
    ('Conv2D', 'conv1_Conv2D', 5, 1, 1700000000000001)
    """
    path = os.fspath(path)
    match = _NPU_NAME.match(real_name or os.path.basename(path))
    if not match:
        return None
    fields = match.groupdict()
    task_type = None if fields["task_type"] is None else int(fields["task_type"])
    if task_type is not None and task_type not in TASK_TYPES:
        return None
    key = fields["op_name"] if slices_apart else slice_key(fields["op_name"], with_fusion_rule)
    if key is None:
        return None

    def number(name: str) -> Optional[int]:
        return None if fields[name] is None else int(fields[name])

    return NpuDumpName(
        path=path,
        op_type=fields["op_type"],
        op_name=fields["op_name"],
        key=key,
        task_id=int(fields["task"]),
        stream_id=number("stream"),
        timestamp=int(fields["timestamp"]),
        task_type=task_type,
        context_id=number("context"),
        thread_id=number("thread"),
        device_id=number("device"),
    )


def parse_golden_name(path: PathLike, *, real_name: Optional[str] = None) -> Optional[GoldenName]:
    """The fields of a golden .npy file name, or None.

    >>> g = parse_golden_name("conv1_Relu.0.1700000000000001.npy")
    >>> g.key, g.timestamp
    ('conv1_Relu.0', 1700000000000001)
    """
    path = os.fspath(path)
    match = _GOLDEN_NAME.match(real_name or os.path.basename(path))
    if not match:
        return None
    return GoldenName(path, match["op_name"], int(match["index"]), int(match["timestamp"]))


def golden_file_name(op_name: str, output_index: int, timestamp: int) -> str:
    """The golden file of output `output_index` of op `op_name`.

    >>> golden_file_name("conv1/Relu", 0, 1700000000000001)
    'conv1_Relu.0.1700000000000001.npy'
    """
    return f"{escape_op_name(op_name)}.{output_index}.{timestamp}.npy"


def device_file_name(op_type: str, op_name: str, task_id: int, stream_id: int, timestamp: int) -> str:
    """The device dump file of one op run.

    >>> device_file_name("Conv", "res2/conv.0", 3, 0, 1700000000000001)
    'Conv.res2_conv_0.3.0.1700000000000001'
    """
    return f"{escape_op_name(op_type)}.{escape_op_name(op_name)}.{task_id}.{stream_id}.{timestamp}"


def is_npu_dump_name(name: str) -> bool:
    """Whether `name` has the fields of an NPU dump name (their values unchecked, unlike the parser)."""
    return _NPU_NAME.match(name) is not None


def is_golden_name(name: str) -> bool:
    """Whether `name` has the fields of a golden file name."""
    return _GOLDEN_NAME.match(name) is not None

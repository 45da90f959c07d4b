"""Reading Ascend dump files and .npy files through the C++ core (tensor bytes stay mapped)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple, Union

from opdiff.conventions.dump_names import GoldenName, NpuDumpName, parse_golden_name, parse_npu_dump_name
from opdiff.dumps import core_files
from opdiff.dumps.formats import data_type_name, format_name, format_number
from opdiff.numerics.frozen import build_frozen

if TYPE_CHECKING:
    import numpy as np

DumpFormatError = core_files.DumpFormatError
PathLike = Union[str, "os.PathLike[str]"]
FormatLike = Union[str, int]

class Role(str, Enum):
    INPUT = "input"
    OUTPUT = "output"
    BUFFER = "buffer"
    WORKSPACE = "workspace"


_CORE_ROLES = {core_files.TensorRole.__members__[role.value]: role for role in Role}


@dataclass(frozen=True)
class DumpTensor:
    """One tensor of a dump file: header facts plus access to its values.

    ``format``/``data_type`` are the Ascend numbers; ``format_name``/``data_type_name`` their names;
    ``dtype`` the core element type name (None when opdiff cannot decode it).
    """

    role: Role
    index: int
    data_type: int
    dtype: Optional[str]
    format: int
    shape: Tuple[int, ...]
    original_shape: Tuple[int, ...]
    size: int
    address: int
    offset: int
    sub_format: int
    origin_name: str
    origin_format: Optional[int]  # original_op.format of an output, when the dump has an original_op
    _file: core_files.TensorFile = field(repr=False, compare=False)

    @property
    def format_name(self) -> str:
        return format_name(self.format)

    @property
    def data_type_name(self) -> str:
        return data_type_name(self.data_type)

    @property
    def nbytes(self) -> int:
        return self.size

    def view(self, format: Optional[FormatLike] = None, shape: Optional[Sequence[int]] = None, *, as_stored: bool = False) -> core_files.TensorView:
        """The core's layout view of this tensor (an ElementSource for metrics, without copying).

        ``format`` is the logical (target) format, default the stored format's natural logical
        one (NCHW for NC1HWC0/FRACTAL_Z, NCDHW for NDC1HWC0, ND for FRACTAL_NZ); ``shape`` the
        logical shape in that format, default the dump's original shape.
        """
        number = None if format is None else format_number(format)
        return core_files.TensorView(self._file, self.role.value, self.index, as_stored=as_stored, format=number,
                                shape=None if shape is None else [int(d) for d in shape])

    def to_numpy(self, logical: bool = True, *, format: Optional[FormatLike] = None, shape: Optional[Sequence[int]] = None) -> np.ndarray:
        """The tensor as a numpy array.

        ``logical=True`` decodes the stored layout to the logical tensor (padding removed) in
        ``format``/``shape`` (see :meth:`view`); ``logical=False`` returns the stored array in the
        stored shape. bfloat16/float8 come back as ml_dtypes arrays, HiFloat8 as float32, packed
        int4 as int8.
        """
        return view_to_numpy(self.view(format, shape, as_stored=not logical))

    def stored_bytes(self) -> np.ndarray:
        """The stored bytes as a read-only uint8 array over the mapped file (no copy); see
        :meth:`check_intact`."""
        stored: np.ndarray = core_files.stored_bytes(self._file, self.role.value, self.index)
        return stored

    def check_intact(self) -> None:
        """Raise :class:`DumpFormatError` when the file shrank on disk since it was opened: bytes
        taken from :meth:`stored_bytes` since then are void (lost pages read as zeros). Reads
        through the core (to_numpy, views, metrics) check this themselves."""
        self._file.check_intact()


def view_to_numpy(view: core_files.TensorView) -> np.ndarray:
    """A layout view's elements decoded into a new numpy array of the view's shape and dtype."""
    # numpy is loaded here, on first use: comparing dumps reads them through the core without it.
    import numpy as np

    from opdiff.dumps.numpy_types import numpy_dtype

    out = np.empty(tuple(view.shape), dtype=numpy_dtype(view.dtype))
    view.read_into(out.reshape(-1).view(np.uint8) if out.size else np.empty(0, np.uint8))
    return out


@dataclass(frozen=True)
class DumpFile:
    """An opened dump (or .npy) file: its header and tensors.

    ``path`` and ``timestamp`` (from the file name) are worked out when first asked for: the
    comparison engine opens thousands of files and uses neither.

    >>> import numpy as np, opdiff, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "Add.add_1.3.4.1700000000000001")
    >>> _ = opdiff.write_dump(path, "add_1", inputs=[np.ones(3, np.float32)], outputs=[np.ones(3, np.float16)])
    >>> dump = opdiff.read_dump(path)
    >>> dump.op_name, dump.timestamp, [t.format_name for t in dump.tensors]
    ('add_1', 1700000000000001, ['ND', 'ND'])
    """

    file_name: str  # the path as it was opened
    file_size: int  # its bytes when it was opened
    form: str
    op_name: str
    version: str
    dump_time: int
    attrs: Tuple[Tuple[str, str], ...]
    inputs: Tuple[DumpTensor, ...]
    outputs: Tuple[DumpTensor, ...]
    buffers: Tuple[DumpTensor, ...]
    workspaces: Tuple[DumpTensor, ...]

    @cached_property
    def path(self) -> Path:
        return Path(self.file_name)

    @cached_property
    def timestamp(self) -> Optional[int]:
        """The timestamp field of the file name (None when the name follows no dump naming rule)."""
        name = _parse_name(os.path.basename(self.file_name))
        return name.timestamp if name else None

    @property
    def tensors(self) -> Tuple[DumpTensor, ...]:
        """Inputs, outputs, buffers and workspaces, in file order."""
        return self.inputs + self.outputs + self.buffers + self.workspaces

    def tensor(self, role: Union[Role, str], index: int) -> DumpTensor:
        role = Role(role)
        group = {Role.INPUT: self.inputs, Role.OUTPUT: self.outputs, Role.BUFFER: self.buffers, Role.WORKSPACE: self.workspaces}[role]
        if not 0 <= index < len(group):
            raise DumpFormatError(f"{self.path}: has no {role.value} {index}")
        return group[index]


def read_dump(path: PathLike) -> DumpFile:
    """Open an Ascend dump (v2, v1 or nano form) or a .npy file; raises :class:`DumpFormatError`
    (a ValueError) naming the file and the problem when it is not a valid one.

    See :class:`DumpFile` for an example.
    """
    # Per-pair overhead matters with thousands of small tensors: plain string names, objects
    # built from their field dicts, the file name parsed only when the header has no op name.
    text = os.fspath(path)
    return dump_of(core_files.open_tensor_file(text), text)


def dump_of(handle: core_files.TensorFile, text: str) -> DumpFile:
    """The DumpFile of a file the core opened (``core_files.open_tensor_file`` or a
    ``core_files.TensorFileCache``) from the path `text`."""
    groups: Dict[Role, List[DumpTensor]] = {role: [] for role in Role}
    for entry in handle.tensors:
        role = _CORE_ROLES[entry.role]
        groups[role].append(build_frozen(DumpTensor, {
            "role": role,
            "index": entry.index,
            "data_type": entry.data_type,
            "dtype": entry.dtype,
            "format": entry.format,
            "shape": entry.shape,
            "original_shape": entry.original_shape,
            "size": entry.size,
            "address": entry.address,
            "offset": entry.offset,
            "sub_format": entry.sub_format,
            "origin_name": entry.origin_name,
            "origin_format": entry.origin_format,
            "_file": handle,
        }))
    op_name = handle.op_name
    if not op_name:
        name = _parse_name(os.path.basename(text))
        op_name = name.op_name if name else ""
    return build_frozen(DumpFile, {
        "file_name": text,
        "file_size": handle.file_size,
        "form": handle.form,
        "op_name": op_name,
        "version": handle.version,
        "dump_time": handle.dump_time,
        "attrs": tuple(tuple(a) for a in handle.attrs),
        "inputs": tuple(groups[Role.INPUT]),
        "outputs": tuple(groups[Role.OUTPUT]),
        "buffers": tuple(groups[Role.BUFFER]),
        "workspaces": tuple(groups[Role.WORKSPACE]),
    })


def _parse_name(base: str) -> Optional[Union[NpuDumpName, GoldenName]]:
    return parse_npu_dump_name(base) or parse_golden_name(base)

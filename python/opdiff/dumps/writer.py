"""Writing Ascend dump files (v2, v1 and nano forms) from logical numpy arrays.

The header is built with the protobuf package from the project's dump_data.proto; tensor bytes
are laid out by :mod:`opdiff.dumps.layouts`.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from opdiff.dumps import dump_data_pb2 as pb
from opdiff.dumps.formats import DATA_TYPE_OF, NANO_DATA_TYPE_OF, default_c0, format_number
from opdiff.dumps.layouts import CANONICAL, encode, pack_int4, transpose_letters
from opdiff.dumps.numpy_types import core_dtype_of
from opdiff.fileio.atomic import replacing
from opdiff.numerics.dtypes import NUMPY_DTYPES

PathLike = Union[str, "os.PathLike[str]"]


class DumpForm(str, Enum):
    """The file forms :func:`write_dump` produces."""

    V2 = "v2"  # u64 header length, DumpData header, raw tensor bytes (what devices write)
    V1 = "v1"  # the whole file is a DumpData; tensor bytes in the `data` fields
    NANO = "nano"  # TLV head (docs/reference/reference-tool.md §1.6)


@dataclass
class Tensor:
    """One tensor to write: a logical array and how to store it.

    ``array`` is in the logical order of ``logical_format`` (default: the layout family's canonical
    order, NCHW / NCDHW / ND). ``dtype`` is the stored element type (a core name such as
    ``"float16"``, ``"bfloat16"``, ``"int4"``, ``"hifloat8"``, or a DT_* name); by default the
    array's own. For ``"hifloat8"`` the array holds the uint8 codes. ``c0`` defaults to the Ascend
    convention for the dtype; ``groups`` is FRACTAL_Z's group count (stored as sub_format).

    >>> import numpy as np
    >>> t = Tensor(np.zeros((1, 20, 3, 3), np.float16), layout="NC1HWC0")
    >>> t.stored()[1]
    (1, 2, 3, 3, 16)
    """

    array: np.ndarray
    layout: str = "ND"
    dtype: Optional[str] = None
    c0: Optional[int] = None
    groups: int = 1
    logical_format: Optional[str] = None
    original_shape: Optional[Sequence[int]] = None  # default: the logical array's shape
    address: int = 0
    origin_name: str = ""
    origin_format: Optional[str] = None  # written as original_op.format (outputs), with origin_name

    def core_dtype(self) -> str:
        return core_dtype_of(self.dtype) if self.dtype is not None else core_dtype_of(np.asarray(self.array).dtype)

    def stored(self) -> Tuple[bytes, Tuple[int, ...]]:
        """(stored bytes, stored shape)."""
        dtype = self.core_dtype()
        array = np.asarray(self.array)
        canonical = CANONICAL.get(self.layout)
        if canonical is None:
            raise ValueError(f"cannot write layout {self.layout}")
        if self.logical_format and self.logical_format != canonical and canonical != "ND":
            array = transpose_letters(array, self.logical_format, canonical)
        if dtype == "hifloat8":
            if array.dtype != np.uint8:
                raise ValueError("hifloat8 tensors are written from their uint8 codes")
            values = array
        elif dtype == "int4":
            values = array.astype(np.int8)
        else:
            values = array.astype(NUMPY_DTYPES[dtype])
        c0 = self.c0 or default_c0(dtype)
        # np.ascontiguousarray would turn a scalar into shape (1,); asarray(order="C") keeps it 0-D.
        stored = np.asarray(encode(values, self.layout, c0=c0, groups=self.groups), order="C")
        if dtype == "int4":
            return pack_int4(stored).tobytes(), tuple(stored.shape)
        return stored.tobytes(), tuple(stored.shape)

    def logical_shape(self) -> Tuple[int, ...]:
        if self.original_shape is not None:
            return tuple(int(d) for d in self.original_shape)
        return tuple(np.asarray(self.array).shape)


@dataclass
class RawBlock:
    """A buffer or workspace: raw bytes and its type number (L1 = 0 / LOG = 0)."""

    data: bytes
    kind: int = 0


TensorLike = Union[Tensor, np.ndarray]


def _as_tensor(item: TensorLike) -> Tensor:
    return item if isinstance(item, Tensor) else Tensor(np.asarray(item))


def _fill_tensor(message: Union[pb.OpInput, pb.OpOutput], tensor: Tensor, data: bytes, shape: Iterable[int], inline: bool) -> None:
    message.data_type = DATA_TYPE_OF[tensor.core_dtype()]  # type: ignore[assignment]  # an enum value, given by number
    message.format = format_number(tensor.layout)  # type: ignore[assignment]  # as above
    message.shape.dim.extend(int(d) for d in shape)
    message.original_shape.dim.extend(tensor.logical_shape())
    message.size = len(data)
    message.address = tensor.address
    if tensor.groups > 1:
        message.sub_format = tensor.groups
    if inline:
        message.data = data


def build_header(
    op_name: str,
    inputs: Sequence[Tuple[Tensor, bytes, Tuple[int, ...]]],
    outputs: Sequence[Tuple[Tensor, bytes, Tuple[int, ...]]],
    buffers: Sequence[RawBlock],
    workspaces: Sequence[RawBlock],
    *,
    inline: bool,
    version: str = "2.0",
    dump_time: int = 0,
    attrs: Sequence[Tuple[str, str]] = (),
) -> pb.DumpData:
    """The DumpData message; ``inline`` puts tensor bytes in the `data` fields (v1)."""
    header = pb.DumpData(version=version, dump_time=dump_time, op_name=op_name)
    for tensor, data, shape in inputs:
        _fill_tensor(header.input.add(), tensor, data, shape, inline)
    for tensor, data, shape in outputs:
        message = header.output.add()
        _fill_tensor(message, tensor, data, shape, inline)
        if tensor.origin_name:
            message.original_op.name = tensor.origin_name
        if tensor.origin_format is not None:
            message.original_op.format = format_number(tensor.origin_format)  # type: ignore[assignment]  # an enum value, given by number
    for block in buffers:
        buffer = header.buffer.add(buffer_type=block.kind, size=len(block.data))
        if inline:
            buffer.data = block.data
    for block in workspaces:
        space = header.space.add(type=block.kind, size=len(block.data))
        if inline:
            space.data = block.data
    for name, value in attrs:
        header.attr.add(name=name, value=value)
    return header


def _nano_tlv(tag: int, value: bytes) -> bytes:
    return struct.pack("<II", tag, len(value)) + value


def _nano_dims(tag: int, dims: Iterable[int]) -> bytes:
    values = [int(d) for d in dims]
    return _nano_tlv(tag, struct.pack(f"<{len(values)}Q", *values))


def _nano_head(inputs: Sequence[Tuple[Tensor, bytes, Tuple[int, ...]]], outputs: Sequence[Tuple[Tensor, bytes, Tuple[int, ...]]]) -> bytes:
    def nano_type(tensor: Tensor) -> int:
        number = DATA_TYPE_OF[tensor.core_dtype()]
        if number not in NANO_DATA_TYPE_OF:
            raise ValueError(f"nano dumps cannot hold {tensor.core_dtype()}")
        return NANO_DATA_TYPE_OF[number]

    records = [struct.pack("<I", len(inputs))]
    for tensor, data, shape in inputs:
        tlvs = _nano_dims(0, shape) + _nano_dims(1, tensor.logical_shape())
        records.append(struct.pack("<iiiQQQI", nano_type(tensor), format_number(tensor.layout), 0, tensor.address, 0, len(data), len(tlvs)) + tlvs)
    output_records = [struct.pack("<I", len(outputs))]
    for tensor, data, shape in outputs:
        tlvs = _nano_dims(0, shape) + _nano_dims(1, tensor.logical_shape()) + _nano_tlv(2, tensor.origin_name.encode())
        fixed = struct.pack("<iiiiiiQQQI", nano_type(tensor), format_number(tensor.layout), 0, 0, 0, 0, tensor.address, 0, len(data), len(tlvs))
        output_records.append(fixed + tlvs)
    return struct.pack("<II", 0x5A5A5A5A, 1) + _nano_tlv(4, b"".join(records)) + _nano_tlv(5, b"".join(output_records))


def write_dump(
    path: PathLike,
    op_name: str,
    inputs: Sequence[TensorLike] = (),
    outputs: Sequence[TensorLike] = (),
    buffers: Sequence[Union[RawBlock, bytes]] = (),
    workspaces: Sequence[Union[RawBlock, bytes]] = (),
    *,
    form: Union[DumpForm, str] = DumpForm.V2,
    version: str = "2.0",
    dump_time: int = 0,
    attrs: Sequence[Tuple[str, str]] = (),
) -> Path:
    """Write an Ascend dump file holding the given tensors; returns its path.

    Each input/output is a numpy array (stored as ND in its own dtype) or a :class:`Tensor`
    saying how to store it (layout, dtype, C0, groups). The file is written to a temporary name
    and renamed, so readers never see half a file. Nano dumps hold no buffers or workspaces.

    >>> import numpy as np, opdiff, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "Conv2D.conv1.2.5.1700000000000000")
    >>> x = np.arange(2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4)
    >>> _ = opdiff.write_dump(path, "conv1", outputs=[Tensor(x, layout="NC1HWC0", dtype="float16")])
    >>> bool((opdiff.read_dump(path).outputs[0].to_numpy() == x).all())
    True
    """
    form = DumpForm(form)
    encoded_inputs = [(t, *t.stored()) for t in map(_as_tensor, inputs)]
    encoded_outputs = [(t, *t.stored()) for t in map(_as_tensor, outputs)]
    buffer_blocks = [b if isinstance(b, RawBlock) else RawBlock(bytes(b)) for b in buffers]
    space_blocks = [b if isinstance(b, RawBlock) else RawBlock(bytes(b)) for b in workspaces]
    target = Path(path)
    with replacing(target) as temporary, open(temporary, "wb") as out:
        if form is DumpForm.NANO:
            if buffer_blocks or space_blocks:
                raise ValueError("nano dumps hold only inputs and outputs")
            head = _nano_head(encoded_inputs, encoded_outputs)
            out.write(struct.pack("<Q", len(head)) + head)
        else:
            header = build_header(op_name, encoded_inputs, encoded_outputs, buffer_blocks, space_blocks,
                                  inline=form is DumpForm.V1, version=version, dump_time=dump_time, attrs=attrs)
            serialized = header.SerializeToString()
            if form is DumpForm.V1:
                out.write(serialized)
            else:
                out.write(struct.pack("<Q", len(serialized)) + serialized)
        if form is not DumpForm.V1:
            for _, data, _ in encoded_inputs + encoded_outputs:
                out.write(data)
            for block in buffer_blocks + space_blocks:
                out.write(block.data)
    return target


def save_npy(path: PathLike, array: np.ndarray, *, fortran_order: bool = False) -> Path:
    """Save `array` as .npy, naming ml_dtypes types (bfloat16, float8_*) in the header's descr,
    which np.save cannot do (it writes an anonymous void type)."""
    array = np.asarray(array)
    name = array.dtype.name
    descr = name if name in ("bfloat16", "float8_e4m3fn", "float8_e5m2") else np.lib.format.dtype_to_descr(array.dtype)
    header = {"descr": descr, "fortran_order": fortran_order, "shape": array.shape}
    target = Path(path)
    with replacing(target) as temporary, open(temporary, "wb") as out:
        np.lib.format.write_array_header_1_0(out, header) if _fits_v1(header) else np.lib.format.write_array_header_2_0(out, header)
        out.write((array.T if fortran_order else array).tobytes(order="C"))
    return target


def _fits_v1(header: Dict[str, Any]) -> bool:
    return len(repr(header)) < 65000


__all__: List[str] = ["DumpForm", "RawBlock", "Tensor", "build_header", "save_npy", "write_dump"]

"""The device's overflow records: ``Opdebug.Node_OpDebug.{task}.{stream}.{timestamp}`` dumps, whose
first output tensor holds one record (docs/reference/reference-tool.md §6.5).

Two payload forms, all fields little-endian:

* the acc_list form: u32 magic ``0x5A5A5A5A``, u32 version, then entries until the end of the
  payload, each ``u32 valid, u32 acc_type, u32 rsv, u32 data_len`` followed by ``data_len`` bytes
  of u64 fields. acc_type 0 AIC and 1 AIV: model_id, stream_id, task_id, task_type, context_id,
  thread_id, pc_start, para_base, core_id, block_id, status (4 status words in version 1, one
  otherwise); 2 AICPU: model_id, stream_id, task_id, task_type, context_id, cpu_id, thread_id,
  status; 3 SDMA: model_id, stream_id, task_id, task_type, context_id, thread_id, src_addr,
  dst_addr, channel_id, status. Bytes past the fields an entry needs (data_len larger) are
  skipped; an all-zero tail after the last entry is padding.
* the old form, exactly 2048 bytes: DHA-atomic info (128 B) and L2-atomic info (128 B), each
  model_id, stream_id, task_id, task_type, pc_start, para_base as u64; AI-core info (256 B, the same
  six); DHA status (256 B) and L2 status (256 B), the first u64 of each; AI-core status (1024 B:
  kernel_code, block_idx, status).

The payload is read in place (struct over the mapped bytes); anything malformed is a
:class:`DumpFormatError` naming the file and the problem.

>>> import struct
>>> fields = [1, 2, 7, 0, 0, 0, 0x1000, 0x2000, 3, 4, 0x10]   # AIC, version 0: one status word
>>> payload = struct.pack("<II", 0x5A5A5A5A, 0) + struct.pack("<4I", 1, 0, 0, 88) + struct.pack("<11Q", *fields)
>>> record = decode_opdebug(payload, "example")
>>> entry = record.overflowing[0]
>>> entry.unit, entry.task_id, entry.stream_id, hex(entry.pc_start), entry.status
('AIC', 7, 2, '0x1000', (16,))
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, fields
from enum import Enum, IntEnum
from typing import Any, Dict, List, Optional, Tuple, Type, Union

import numpy as np

from opdiff.conventions.dump_names import parse_npu_dump_name
from opdiff.dumps.reader import DumpFormatError, read_dump

PathLike = Union[str, "os.PathLike[str]"]
Buffer = Union[bytes, bytearray, memoryview, np.ndarray]

MAGIC = 0x5A5A5A5A
OLD_FORM_SIZE = 2048
ENTRY_HEADER = struct.Struct("<4I")
MAX_ENTRIES = 4096  # a device writes one entry per unit; this bounds the work a hostile payload causes
#: Fields printed and written in hex (addresses and status words).
HEX_FIELDS = frozenset({"pc_start", "para_base", "src_addr", "dst_addr", "kernel_code", "status"})


class AccType(IntEnum):
    """acc_type of an acc_list entry: the unit that reported the overflow."""

    AIC = 0
    AIV = 1
    AICPU = 2
    SDMA = 3


class OldUnit(str, Enum):
    """The three units of the old 2048-byte form."""

    DHA_ATOMIC = "DHA atomic"
    L2_ATOMIC = "L2 atomic"
    AI_CORE = "AI core"


class RecordForm(str, Enum):
    ACC_LIST = "acc_list"
    OLD = "old"


@dataclass(frozen=True)
class _AccEntryHead:
    """The fields every acc_list entry starts with, in payload order; each entry type adds its own
    fields after them (dataclass inheritance keeps that order), status last."""

    acc_type: AccType
    valid: bool
    data_len: int
    model_id: int
    stream_id: int
    task_id: int
    task_type: int
    context_id: int

    @property
    def unit(self) -> str:
        return self.acc_type.name


@dataclass(frozen=True)
class CoreEntry(_AccEntryHead):
    """An AIC or AIV entry."""

    thread_id: int
    pc_start: int
    para_base: int
    core_id: int
    block_id: int
    status: Tuple[int, ...]


@dataclass(frozen=True)
class AicpuEntry(_AccEntryHead):
    """An AICPU entry."""

    cpu_id: int
    thread_id: int
    status: Tuple[int, ...]


@dataclass(frozen=True)
class SdmaEntry(_AccEntryHead):
    """An SDMA entry."""

    thread_id: int
    src_addr: int
    dst_addr: int
    channel_id: int
    status: Tuple[int, ...]


@dataclass(frozen=True)
class OldUnitEntry:
    """One unit of the old form; it reported an overflow when its status is not zero.
    ``kernel_code`` and ``block_idx`` exist for the AI core only."""

    old_unit: OldUnit
    model_id: int
    stream_id: int
    task_id: int
    task_type: int
    pc_start: int
    para_base: int
    status: Tuple[int, ...]
    kernel_code: Optional[int] = None
    block_idx: Optional[int] = None

    @property
    def unit(self) -> str:
        return self.old_unit.value

    @property
    def valid(self) -> bool:
        return any(self.status)

    # The old form has no FFTS+ ids: matching a dump uses task and stream only.
    @property
    def context_id(self) -> Optional[int]:
        return None

    @property
    def thread_id(self) -> Optional[int]:
        return None


Entry = Union[CoreEntry, AicpuEntry, SdmaEntry, OldUnitEntry]
AccEntry = Union[CoreEntry, AicpuEntry, SdmaEntry]


@dataclass(frozen=True)
class OpdebugRecord:
    """A decoded record: its form, version (acc_list form only) and entries in payload order."""

    form: RecordForm
    version: Optional[int]
    entries: Tuple[Entry, ...]

    @property
    def overflowing(self) -> Tuple[Entry, ...]:
        """The entries that report an overflow: valid acc_list entries, old-form units with a
        non-zero status."""
        return tuple(e for e in self.entries if e.valid)


ENTRY_CLASSES: Dict[AccType, Type[Any]] = {
    AccType.AIC: CoreEntry, AccType.AIV: CoreEntry, AccType.AICPU: AicpuEntry, AccType.SDMA: SdmaEntry,
}  # fmt: skip
_HEAD_FIELDS = ("acc_type", "valid", "data_len")


def u64_fields(cls: Type[Any]) -> Tuple[str, ...]:
    """The u64 fields of an acc_list entry class in payload order, status last."""
    return tuple(f.name for f in fields(cls) if f.name not in _HEAD_FIELDS)


def status_words(acc_type: AccType, version: int) -> int:
    """How many u64 status words an entry has: 4 for AIC/AIV in version 1, else 1."""
    return 4 if version == 1 and acc_type in (AccType.AIC, AccType.AIV) else 1


def entry_size(acc_type: AccType, version: int) -> int:
    """The bytes of u64 fields an entry of this type needs (data_len must be at least this)."""
    return 8 * (len(u64_fields(ENTRY_CLASSES[acc_type])) - 1 + status_words(acc_type, version))


def is_opdebug_name(path: PathLike) -> bool:
    """Whether a file name is an Opdebug record dump's.

    >>> is_opdebug_name("dump/Opdebug.Node_OpDebug.12.3.1700000000000000"), is_opdebug_name("Add.add.1.1.1700000000000000")
    (True, False)
    """
    name = parse_npu_dump_name(path, with_fusion_rule=False)
    return name is not None and name.is_opdebug_record


def _as_bytes(data: Buffer) -> memoryview:
    view = data.data if isinstance(data, np.ndarray) else memoryview(data)
    return view if view.format == "B" and view.ndim == 1 else view.cast("B")


def decode_opdebug(data: Buffer, source: PathLike) -> OpdebugRecord:
    """Decode an Opdebug payload (the first output tensor's bytes); ``source`` names the file in
    errors. See the module docstring for the forms."""
    view = _as_bytes(data)
    if len(view) < 8:
        raise DumpFormatError(f"{source}: Opdebug record too short ({len(view)} bytes; the smallest holds magic and version)")
    magic, version = struct.unpack_from("<II", view, 0)
    if magic == MAGIC:
        return OpdebugRecord(RecordForm.ACC_LIST, version, _decode_acc_list(view, version, source))
    if len(view) == OLD_FORM_SIZE:
        return OpdebugRecord(RecordForm.OLD, None, _decode_old(view))
    raise DumpFormatError(
        f"{source}: not an Opdebug record: magic 0x{magic:08X} is not 0x{MAGIC:08X} and the payload is "
        f"{len(view)} bytes, not the old form's {OLD_FORM_SIZE}"
    )


def _decode_acc_list(view: memoryview, version: int, source: PathLike) -> Tuple[AccEntry, ...]:
    entries: List[AccEntry] = []
    offset = 8
    while offset < len(view):
        if _zero_tail(view, offset):
            break  # padding after the last entry (the device may write a fixed-size buffer)
        if len(entries) == MAX_ENTRIES:
            raise DumpFormatError(f"{source}: Opdebug record has more than {MAX_ENTRIES} acc_list entries")
        if len(view) - offset < ENTRY_HEADER.size:
            raise DumpFormatError(f"{source}: Opdebug acc_list entry {len(entries)} at byte {offset}: header cut short "
                                  f"({len(view) - offset} of {ENTRY_HEADER.size} bytes)")
        valid, acc_number, _rsv, data_len = ENTRY_HEADER.unpack_from(view, offset)
        where = f"{source}: Opdebug acc_list entry {len(entries)} at byte {offset}"
        if acc_number not in AccType._value2member_map_:
            raise DumpFormatError(f"{where}: unknown acc_type {acc_number} (0 AIC, 1 AIV, 2 AICPU, 3 SDMA)")
        acc_type = AccType(acc_number)
        body = offset + ENTRY_HEADER.size
        if data_len > len(view) - body:
            raise DumpFormatError(f"{where}: data_len {data_len} runs past the end of the payload "
                                  f"({len(view) - body} bytes left)")
        needed = entry_size(acc_type, version)
        if data_len < needed:
            raise DumpFormatError(f"{where}: data_len {data_len} is too short for an {acc_type.name} entry "
                                  f"of version {version} ({needed} bytes)")
        entries.append(_entry(acc_type, bool(valid), data_len, version, view, body))
        offset = body + data_len
    return tuple(entries)


def _zero_tail(view: memoryview, offset: int) -> bool:
    # Only a zero entry header can start padding; checking that first keeps a long payload of
    # many entries linear.
    head = view[offset : offset + ENTRY_HEADER.size]
    return not any(head) and not np.frombuffer(view[offset:], np.uint8).any()


def _entry(acc_type: AccType, valid: bool, data_len: int, version: int, view: memoryview, body: int) -> AccEntry:
    cls = ENTRY_CLASSES[acc_type]
    names = u64_fields(cls)
    count = len(names) - 1 + status_words(acc_type, version)
    values = struct.unpack_from(f"<{count}Q", view, body)
    fixed = dict(zip(names[:-1], values))
    entry: AccEntry = cls(acc_type=acc_type, valid=valid, data_len=data_len, **fixed, status=tuple(values[len(names) - 1 :]))
    return entry


# Old form: (unit, info offset, status offset).
OLD_LAYOUT = ((OldUnit.DHA_ATOMIC, 0, 512), (OldUnit.L2_ATOMIC, 128, 768), (OldUnit.AI_CORE, 256, 1024))
_INFO = struct.Struct("<6Q")


def _decode_old(view: memoryview) -> Tuple[OldUnitEntry, ...]:
    entries = []
    for unit, info_at, status_at in OLD_LAYOUT:
        model_id, stream_id, task_id, task_type, pc_start, para_base = _INFO.unpack_from(view, info_at)
        if unit is OldUnit.AI_CORE:
            kernel_code, block_idx, status = struct.unpack_from("<3Q", view, status_at)
            extra: Dict[str, Optional[int]] = {"kernel_code": kernel_code, "block_idx": block_idx}
        else:
            (status,) = struct.unpack_from("<Q", view, status_at)
            extra = {}
        entries.append(OldUnitEntry(unit, model_id, stream_id, task_id, task_type, pc_start, para_base, (status,), **extra))
    return tuple(entries)


def read_opdebug(path: PathLike) -> OpdebugRecord:
    """Open an Opdebug dump and decode the record in its first output tensor.

    >>> import tempfile, os
    >>> from opdiff.dumps.opdebug_writer import core_entry, write_opdebug_dump
    >>> path = write_opdebug_dump(tempfile.mkdtemp(), [core_entry(task_id=5, stream_id=1, status=(1, 0, 0, 0))], version=1)
    >>> [(e.unit, e.task_id, e.status) for e in read_opdebug(path).overflowing]
    [('AIC', 5, (1, 0, 0, 0))]
    """
    dump = read_dump(path)
    if not dump.outputs:
        raise DumpFormatError(f"{path}: an Opdebug dump holds its record in output 0; this one has no output")
    tensor = dump.outputs[0]
    record = decode_opdebug(tensor.stored_bytes(), path)
    tensor.check_intact()  # the mapped bytes are void if the file shrank while decoding
    return record


def _json_value(name: str, value: Any) -> Any:
    if isinstance(value, Enum):
        return value.name if isinstance(value, IntEnum) else value.value
    if isinstance(value, bool):
        return int(value)
    if name in HEX_FIELDS:
        return [hex(v) for v in value] if isinstance(value, tuple) else (None if value is None else hex(value))
    return value


def entry_json(entry: Entry) -> Dict[str, Any]:
    """One entry as JSON-ready values, in payload order; addresses and status words in hex."""
    out: Dict[str, Any] = {"unit": entry.unit}
    for f in fields(entry):
        value = getattr(entry, f.name)
        if f.name == "old_unit" or (value is None and f.name in ("kernel_code", "block_idx")):
            continue
        out[f.name] = _json_value(f.name, value)
    if isinstance(entry, OldUnitEntry):
        out["valid"] = int(entry.valid)
    return out


def record_json(record: OpdebugRecord, source: PathLike) -> Dict[str, Any]:
    """The record as written by ``opdiff convert`` (``{file}.output.0.json``).

    >>> import struct
    >>> payload = bytearray(2048)
    >>> struct.pack_into("<6Q", payload, 256, 0, 2, 9, 0, 0xABC0, 0x100)     # AI-core info
    >>> struct.pack_into("<3Q", payload, 1024, 0xDEAD, 1, 4)                   # AI-core status
    >>> doc = record_json(decode_opdebug(payload, "x"), "x")
    >>> doc["form"], doc["entries"][2]["unit"], doc["entries"][2]["pc_start"], doc["entries"][2]["status"]
    ('old', 'AI core', '0xabc0', ['0x4'])
    """
    doc: Dict[str, Any] = {"file": os.fspath(source), "form": record.form.value}
    if record.form is RecordForm.ACC_LIST:
        doc["magic"] = hex(MAGIC)
        doc["version"] = record.version
    doc["entries"] = [entry_json(e) for e in record.entries]
    return doc


def format_status(status: Tuple[int, ...]) -> str:
    """Status words for the summary: ``0x10`` or ``0x1,0x0,0x0,0x0``."""
    return ",".join(hex(word) for word in status)


__all__ = [
    "AccType", "AicpuEntry", "CoreEntry", "Entry", "OldUnit", "OldUnitEntry", "OpdebugRecord", "RecordForm",
    "SdmaEntry", "decode_opdebug", "entry_json", "format_status", "is_opdebug_name", "read_opdebug", "record_json",
]  # fmt: skip

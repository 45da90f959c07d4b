"""Writing Opdebug overflow-record dumps (docs/reference/reference-tool.md §6.5), as test data for
overflow detection (`opdiff overflow`, `scan_overflow`) and for the tests: the payload in both
forms, packed from the layout the reference describes (field lists spelled out here, not taken
from the decoder, so a layout mistake in one shows up against the other), stored as the uint8 first
output of a v2 dump named ``Opdebug.Node_OpDebug.{task}.{stream}.{timestamp}``.

>>> import tempfile
>>> from opdiff.dumps.opdebug import read_opdebug
>>> path = write_opdebug_dump(tempfile.mkdtemp(), [sdma_entry(task_id=4, stream_id=2, src_addr=0x10)], version=0)
>>> path.name, read_opdebug(path).entries[0].src_addr
('Opdebug.Node_OpDebug.65535.0.1700000000000000', 16)
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Optional, Sequence, Tuple, Union

import numpy as np

from opdiff.conventions.dump_names import OPDEBUG_OP_NAME, OPDEBUG_OP_TYPE, device_file_name
from opdiff.dumps.opdebug import (
    MAGIC,
    AccType,
    AicpuEntry,
    CoreEntry,
    Entry,
    OldUnit,
    OldUnitEntry,
    OpdebugRecord,
    RecordForm,
    SdmaEntry,
)  # fmt: skip
from opdiff.dumps.writer import Tensor, write_dump

PathLike = Union[str, "os.PathLike[str]"]
AccEntry = Union[CoreEntry, AicpuEntry, SdmaEntry]
TIMESTAMP = 1700000000000000

# The u64 fields before the status words, per acc_type (§6.5).
CORE_FIELDS = ("model_id", "stream_id", "task_id", "task_type", "context_id", "thread_id", "pc_start", "para_base", "core_id", "block_id")
AICPU_FIELDS = ("model_id", "stream_id", "task_id", "task_type", "context_id", "cpu_id", "thread_id")
SDMA_FIELDS = ("model_id", "stream_id", "task_id", "task_type", "context_id", "thread_id", "src_addr", "dst_addr", "channel_id")
FIELDS_OF = {CoreEntry: CORE_FIELDS, AicpuEntry: AICPU_FIELDS, SdmaEntry: SDMA_FIELDS}


def _data_len(field_count: int, status: Tuple[int, ...]) -> int:
    return 8 * (field_count + len(status))


def core_entry(*, acc_type: AccType = AccType.AIC, valid: bool = True, model_id: int = 1, stream_id: int = 0, task_id: int = 0,
               task_type: int = 0, context_id: int = 0, thread_id: int = 0, pc_start: int = 0x12C0_0000_1000,
               para_base: int = 0x12C0_0020_0000, core_id: int = 3, block_id: int = 0, status: Tuple[int, ...] = (0x10,),
               data_len: Optional[int] = None) -> CoreEntry:
    """An AIC (or, with ``acc_type=AccType.AIV``, AIV) entry; 4 status words for version 1."""
    return CoreEntry(acc_type, valid, data_len if data_len is not None else _data_len(len(CORE_FIELDS), status), model_id,
                     stream_id, task_id, task_type, context_id, thread_id, pc_start, para_base, core_id, block_id, tuple(status))


def aicpu_entry(*, valid: bool = True, model_id: int = 1, stream_id: int = 0, task_id: int = 0, task_type: int = 1,
                context_id: int = 0, cpu_id: int = 2, thread_id: int = 0, status: Tuple[int, ...] = (0x1,),
                data_len: Optional[int] = None) -> AicpuEntry:
    """An AICPU entry."""
    return AicpuEntry(AccType.AICPU, valid, data_len if data_len is not None else _data_len(len(AICPU_FIELDS), status),
                      model_id, stream_id, task_id, task_type, context_id, cpu_id, thread_id, tuple(status))


def sdma_entry(*, valid: bool = True, model_id: int = 1, stream_id: int = 0, task_id: int = 0, task_type: int = 0,
               context_id: int = 0, thread_id: int = 0, src_addr: int = 0x12C0_0100_0000, dst_addr: int = 0x12C0_0200_0000,
               channel_id: int = 5, status: Tuple[int, ...] = (0x2,), data_len: Optional[int] = None) -> SdmaEntry:
    """An SDMA entry."""
    return SdmaEntry(AccType.SDMA, valid, data_len if data_len is not None else _data_len(len(SDMA_FIELDS), status),
                     model_id, stream_id, task_id, task_type, context_id, thread_id, src_addr, dst_addr, channel_id, tuple(status))


def old_entries(*, model_id: int = 1, stream_id: int = 0, task_id: int = 0, task_type: int = 0, ai_core_status: int = 0x8,
                dha_status: int = 0, l2_status: int = 0, pc_start: int = 0x12C0_0000_1000, para_base: int = 0x12C0_0020_0000,
                kernel_code: int = 0x12C0_0000_0800, block_idx: int = 1) -> Tuple[OldUnitEntry, ...]:
    """The three units of an old-form record, all naming one task (a zero status: no overflow there)."""
    ids = (model_id, stream_id, task_id, task_type, pc_start, para_base)
    return (OldUnitEntry(OldUnit.DHA_ATOMIC, *ids, (dha_status,)), OldUnitEntry(OldUnit.L2_ATOMIC, *ids, (l2_status,)),
            OldUnitEntry(OldUnit.AI_CORE, *ids, (ai_core_status,), kernel_code=kernel_code, block_idx=block_idx))


def encode_entry(entry: AccEntry) -> bytes:
    """Entry header and fields; data_len larger than the fields is zero-filled, smaller cuts them."""
    values = [int(getattr(entry, name)) for name in FIELDS_OF[type(entry)]] + [int(s) for s in entry.status]
    body = struct.pack(f"<{len(values)}Q", *values)
    body = body[: entry.data_len] + bytes(max(0, entry.data_len - len(body)))
    return struct.pack("<4I", int(entry.valid), int(entry.acc_type), 0, entry.data_len) + body


def encode_acc_list(entries: Sequence[AccEntry], version: int = 1, *, padding: int = 0) -> bytes:
    """The acc_list form: magic, version, entries, then `padding` zero bytes."""
    return struct.pack("<II", MAGIC, version) + b"".join(encode_entry(e) for e in entries) + bytes(padding)


def encode_old(entries: Sequence[OldUnitEntry]) -> bytes:
    """The 2048-byte old form."""
    payload = bytearray(2048)
    places = {OldUnit.DHA_ATOMIC: (0, 512), OldUnit.L2_ATOMIC: (128, 768), OldUnit.AI_CORE: (256, 1024)}
    for entry in entries:
        info_at, status_at = places[entry.old_unit]
        struct.pack_into("<6Q", payload, info_at, entry.model_id, entry.stream_id, entry.task_id, entry.task_type,
                         entry.pc_start, entry.para_base)
        if entry.old_unit is OldUnit.AI_CORE:
            struct.pack_into("<3Q", payload, status_at, entry.kernel_code or 0, entry.block_idx or 0, entry.status[0])
        else:
            struct.pack_into("<Q", payload, status_at, entry.status[0])
    return bytes(payload)


def encode_record(record: OpdebugRecord) -> bytes:
    if record.form is RecordForm.OLD:
        return encode_old([e for e in record.entries if isinstance(e, OldUnitEntry)])
    return encode_acc_list([e for e in record.entries if not isinstance(e, OldUnitEntry)], record.version or 0)


def opdebug_name(task_id: int = 65535, stream_id: int = 0, timestamp: int = TIMESTAMP) -> str:
    """The device's file name for an Opdebug dump (its own task and stream, not the overflowing op's)."""
    return device_file_name(OPDEBUG_OP_TYPE, OPDEBUG_OP_NAME, task_id, stream_id, timestamp)


def write_opdebug_dump(folder: PathLike, payload: Union[OpdebugRecord, Sequence[Entry], bytes], *, version: int = 1,
                       task_id: int = 65535, stream_id: int = 0, timestamp: int = TIMESTAMP, name: Optional[str] = None) -> Path:
    """Write an Opdebug dump into `folder`; `payload` is a record, entries (all old-form units: the
    old form, else the acc_list form of `version`) or raw payload bytes. Returns its path."""
    if isinstance(payload, OpdebugRecord):
        data = encode_record(payload)
    elif isinstance(payload, (bytes, bytearray)):
        data = bytes(payload)
    elif payload and all(isinstance(e, OldUnitEntry) for e in payload):
        data = encode_old(payload)  # type: ignore[arg-type]
    else:
        data = encode_acc_list(payload, version)  # type: ignore[arg-type]
    path = Path(folder) / (name or opdebug_name(task_id, stream_id, timestamp))
    return write_dump(path, "Node_OpDebug", outputs=[Tensor(np.frombuffer(data, np.uint8))])

"""Opdebug overflow records (docs/reference/reference-tool.md §6.5): the decoder against payloads packed by hand
here, the project's writer against the decoder, bad payloads, and `opdiff convert` writing the
record as JSON (§6.6)."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path
from typing import List

import numpy as np
import pytest

import opdiff
from opdiff.dumps import DumpFormatError
from opdiff.dumps.opdebug import (
    AccType,
    AicpuEntry,
    CoreEntry,
    OldUnit,
    OpdebugRecord,
    RecordForm,
    SdmaEntry,
    decode_opdebug,
    is_opdebug_name,
    read_opdebug,
)  # fmt: skip
from opdiff.dumps.opdebug_writer import (
    aicpu_entry,
    core_entry,
    encode_acc_list,
    old_entries,
    sdma_entry,
    write_opdebug_dump,
)  # fmt: skip
from tests.support.child_env import child_env

MAGIC = 0x5A5A5A5A


def head(valid: int, acc_type: int, data_len: int, rsv: int = 0) -> bytes:
    return struct.pack("<4I", valid, acc_type, rsv, data_len)


def u64(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}Q", *values)


# Field values in the order §6.5 lists them, packed by hand (not by the project's writer).
CORE_VALUES = [7, 2, 31, 0, 5, 6, 0x12C0_0000_1000, 0x12C0_0020_0000, 11, 12]
AICPU_VALUES = [7, 2, 31, 1, 5, 3, 6]
SDMA_VALUES = [7, 2, 31, 0, 5, 6, 0xAAAA_0000, 0xBBBB_0000, 9]


@pytest.mark.parametrize("version", [0, 1])
@pytest.mark.parametrize("acc_type", list(AccType))
def test_each_acc_type_and_version_decodes_from_hand_packed_bytes(acc_type: AccType, version: int) -> None:
    values = {AccType.AIC: CORE_VALUES, AccType.AIV: CORE_VALUES, AccType.AICPU: AICPU_VALUES, AccType.SDMA: SDMA_VALUES}[acc_type]
    status = [0x10, 0x20, 0x30, 0x40] if version == 1 and acc_type in (AccType.AIC, AccType.AIV) else [0x10]
    body = u64(*values, *status)
    record = decode_opdebug(struct.pack("<II", MAGIC, version) + head(1, acc_type, len(body)) + body, "hand")
    assert record.form is RecordForm.ACC_LIST and record.version == version
    (entry,) = record.overflowing
    assert entry.acc_type is acc_type and entry.unit == acc_type.name and entry.data_len == len(body)
    assert (entry.model_id, entry.stream_id, entry.task_id, entry.context_id) == (7, 2, 31, 5)
    assert entry.status == tuple(status)
    if acc_type in (AccType.AIC, AccType.AIV):
        assert isinstance(entry, CoreEntry)
        assert (entry.thread_id, entry.pc_start, entry.para_base, entry.core_id, entry.block_id) == (6, *CORE_VALUES[6:])
    elif acc_type is AccType.AICPU:
        assert isinstance(entry, AicpuEntry) and (entry.task_type, entry.cpu_id, entry.thread_id) == (1, 3, 6)
    else:
        assert isinstance(entry, SdmaEntry)
        assert (entry.thread_id, entry.src_addr, entry.dst_addr, entry.channel_id) == (6, 0xAAAA_0000, 0xBBBB_0000, 9)


def test_old_form_decodes_from_hand_packed_bytes() -> None:
    payload = bytearray(2048)
    struct.pack_into("<6Q", payload, 0, 1, 2, 3, 0, 0xD0, 0xD8)  # DHA atomic info
    struct.pack_into("<6Q", payload, 128, 1, 2, 4, 0, 0xE0, 0xE8)  # L2 atomic info
    struct.pack_into("<6Q", payload, 256, 1, 2, 5, 0, 0xF0, 0xF8)  # AI core info
    struct.pack_into("<Q", payload, 512, 0)  # DHA status: no overflow
    struct.pack_into("<Q", payload, 768, 0x4)  # L2 status
    struct.pack_into("<3Q", payload, 1024, 0xC0DE, 7, 0x8)  # AI core: kernel_code, block_idx, status
    record = decode_opdebug(bytes(payload), "old")
    assert record.form is RecordForm.OLD and record.version is None
    dha, l2, core = record.entries
    assert [e.unit for e in record.entries] == ["DHA atomic", "L2 atomic", "AI core"]
    assert (dha.task_id, dha.pc_start, dha.para_base, dha.status, dha.valid) == (3, 0xD0, 0xD8, (0,), False)
    assert (l2.task_id, l2.stream_id, l2.status) == (4, 2, (0x4,))
    assert (core.task_id, core.kernel_code, core.block_idx, core.status, core.pc_start) == (5, 0xC0DE, 7, (0x8,), 0xF0)
    assert [e.unit for e in record.overflowing] == ["L2 atomic", "AI core"]


def test_writer_round_trips_every_entry_kind(tmp_path: Path) -> None:
    entries = [
        core_entry(task_id=1, stream_id=3, status=(1, 2, 3, 4)),
        core_entry(acc_type=AccType.AIV, task_id=2, thread_id=9, status=(5, 0, 0, 0)),
        aicpu_entry(task_id=3, cpu_id=7, status=(6,)),
        sdma_entry(task_id=4, channel_id=8, status=(7,)),
        core_entry(valid=False, task_id=5, status=(0, 0, 0, 0)),
    ]
    # AICPU and SDMA carry one status word in either version; AIC/AIV four in version 1
    record = read_opdebug(write_opdebug_dump(tmp_path, entries, version=1))
    assert record == OpdebugRecord(RecordForm.ACC_LIST, 1, tuple(entries))
    assert [e.task_id for e in record.overflowing] == [1, 2, 3, 4]
    old = old_entries(task_id=6, stream_id=1, ai_core_status=0x8, l2_status=0x2)
    record = read_opdebug(write_opdebug_dump(tmp_path, old, name="Opdebug.Node_OpDebug.1.1.1700000000000001"))
    assert record == OpdebugRecord(RecordForm.OLD, None, old)
    assert [e.unit for e in record.overflowing] == [OldUnit.L2_ATOMIC.value, OldUnit.AI_CORE.value]


def test_longer_entries_and_zero_padding_are_skipped() -> None:
    wide = core_entry(task_id=1, status=(9,), data_len=88 + 24)  # newer device: 3 more words
    payload = encode_acc_list([wide, sdma_entry(task_id=2)], version=0, padding=64)
    record = decode_opdebug(payload, "padded")
    assert [(e.unit, e.task_id, e.data_len) for e in record.entries] == [("AIC", 1, 112), ("SDMA", 2, 80)]
    assert record.entries[0].status == (9,)


def bad_payloads() -> List[tuple]:
    good = encode_acc_list([core_entry(task_id=1, status=(1, 0, 0, 0))], version=1)
    return [
        ("empty", b"", "too short (0 bytes"),
        ("seven bytes", good[:7], "too short (7 bytes"),
        ("wrong magic", struct.pack("<II", 0x12345678, 1) + good[8:], "magic 0x12345678 is not 0x5A5A5A5A"),
        ("old form one byte short", bytes(2047), "not the old form's 2048"),
        ("data_len past the end", good[:-8], "data_len 112 runs past the end of the payload (104 bytes left)"),
        ("unknown acc_type", struct.pack("<II", MAGIC, 1) + head(1, 7, 88) + bytes(88), "unknown acc_type 7"),
        ("entry header cut", good + b"\x01\x00\x00", "entry 1 at byte 136: header cut short (3 of 16 bytes)"),
        ("data_len too short", struct.pack("<II", MAGIC, 1) + head(1, 0, 88) + bytes(88), "data_len 88 is too short for an AIC entry of version 1 (112 bytes)"),
        ("too many entries", struct.pack("<II", MAGIC, 0) + (head(0, 2, 64) + bytes(64)) * 4097, "more than 4096 acc_list entries"),
    ]


@pytest.mark.parametrize("what,payload,problem", bad_payloads(), ids=[case[0] for case in bad_payloads()])
def test_bad_payloads_name_the_file_and_the_problem(tmp_path: Path, what: str, payload: bytes, problem: str) -> None:
    path = write_opdebug_dump(tmp_path, payload)
    with pytest.raises(DumpFormatError) as raised:
        read_opdebug(path)
    assert str(path) in str(raised.value) and problem in str(raised.value), str(raised.value)


def test_a_dump_without_outputs_is_refused(tmp_path: Path) -> None:
    path = opdiff.write_dump(tmp_path / "Opdebug.Node_OpDebug.1.1.1700000000000000", "Node_OpDebug", inputs=[np.zeros(8, np.uint8)])
    with pytest.raises(DumpFormatError, match="holds its record in output 0; this one has no output"):
        read_opdebug(path)


def test_every_truncation_is_decoded_or_refused_cleanly() -> None:
    payload = encode_acc_list([core_entry(), aicpu_entry(), sdma_entry(), core_entry(acc_type=AccType.AIV)], version=1)
    outcomes = set()
    for cut in range(len(payload)):
        try:
            decode_opdebug(payload[:cut], "cut")
            outcomes.add("decoded")
        except DumpFormatError as error:
            assert str(error).startswith("cut: ")
            outcomes.add("refused")
    assert outcomes == {"decoded", "refused"}  # cuts at entry boundaries are shorter valid records


def test_opdebug_names() -> None:
    assert is_opdebug_name("/x/Opdebug.Node_OpDebug.3.1.1700000000000000")
    assert is_opdebug_name("Opdebug.Node_OpDebug.3.1.1700000000000000.4.0.1.0")
    assert not is_opdebug_name("Opdebug.Other.3.1.1700000000000000")
    assert not is_opdebug_name("Opdebug.Node_OpDebug.3.1.1700000000000000.npy")


def test_convert_writes_the_record_as_json_with_hex_addresses(tmp_path: Path) -> None:
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    new = write_opdebug_dump(dumps, [core_entry(task_id=3, stream_id=1, pc_start=0xABC000, status=(0x10, 0, 0, 1)),
                                     sdma_entry(task_id=4, src_addr=0x1000, dst_addr=0x2000)], version=1)
    old = write_opdebug_dump(dumps, old_entries(task_id=5, kernel_code=0xC0DE), timestamp=1700000000000001)
    bad = write_opdebug_dump(dumps, b"\x00" * 12, timestamp=1700000000000002)
    opdiff.write_dump(dumps / "Add.add.3.1.1699999999999999", "add", outputs=[np.ones(3, np.float16)])
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "opdiff", "convert", "-d", str(dumps), "-out", str(out)],
                         capture_output=True, text=True, env=child_env(COLUMNS="200"))
    assert run.returncode == 11, run.stderr  # one file failed, the others converted
    assert str(bad) in (out / "convert_failed_file_list.txt").read_text() and "magic 0x00000000" in run.stderr
    doc = json.loads((out / (new.name + ".output.0.json")).read_text())
    assert doc["form"] == "acc_list" and doc["magic"] == "0x5a5a5a5a" and doc["version"] == 1
    aic, sdma = doc["entries"]
    assert aic["unit"] == "AIC" and aic["valid"] == 1 and aic["task_id"] == 3 and aic["data_len"] == 112
    assert aic["pc_start"] == "0xabc000" and aic["status"] == ["0x10", "0x0", "0x0", "0x1"]
    assert sdma["acc_type"] == "SDMA" and sdma["src_addr"] == "0x1000" and sdma["dst_addr"] == "0x2000"
    old_doc = json.loads((out / (old.name + ".output.0.json")).read_text())
    assert old_doc["form"] == "old" and "magic" not in old_doc
    assert [e["unit"] for e in old_doc["entries"]] == ["DHA atomic", "L2 atomic", "AI core"]
    assert old_doc["entries"][2]["kernel_code"] == "0xc0de" and old_doc["entries"][2]["valid"] == 1
    assert not (out / (new.name + ".output.0.npy")).exists() and (out / "Add.add.3.1.1699999999999999.output.0.npy").exists()
    assert not list(out.glob(".opdiff-*"))

"""TFRecord streams, record by record, never loading a whole file: each record is its length
(uint64, little-endian), the masked CRC-32C of those 8 bytes, the data, and the data's masked CRC.

A record whose data CRC fails is still yielded, marked, so a reader can give that one tensor a
reason; a bad length CRC or a short file ends the stream with :class:`RecordError`, since nothing
after it can be framed."""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from typing import BinaryIO, Iterator, Optional

from opdiff.dumps.tfdbg.crc32c import masked_crc32c

HEADER = struct.Struct("<QI")
FOOTER = struct.Struct("<I")
# No DebugEvent of a sane dump comes near this; a larger length is a damaged header.
MAX_RECORD_BYTES = 1 << 34


class RecordError(ValueError):
    """A stream that cannot be framed from here on (its offset and why)."""


@dataclass(frozen=True)
class Record:
    """One record: where its data starts in the file, the data, and why its CRC failed (or None)."""

    offset: int
    data: bytes
    damage: Optional[str] = None


def read_records(handle: BinaryIO, *, check_crc: bool = True, start: int = 0) -> Iterator[Record]:
    """Every record from `start` (a record's header offset) to the end of `handle`."""
    handle.seek(start)
    position = start
    while True:
        header = handle.read(HEADER.size)
        if not header:
            return
        if len(header) < HEADER.size:
            raise RecordError(f"offset {position}: a record header cut short ({len(header)} of {HEADER.size} bytes)")
        length, length_crc = HEADER.unpack(header)
        if masked_crc32c(header[:8]) != length_crc:
            raise RecordError(f"offset {position}: the record length's CRC does not match (a damaged length)")
        if length > MAX_RECORD_BYTES:
            raise RecordError(f"offset {position}: a record length of {length} bytes")
        data = handle.read(length)
        footer = handle.read(FOOTER.size)
        if len(data) < length or len(footer) < FOOTER.size:
            raise RecordError(f"offset {position}: a record of {length} bytes cut short by the end of the file")
        damage = None
        if check_crc and masked_crc32c(data) != FOOTER.unpack(footer)[0]:
            damage = f"offset {position}: the record's data CRC does not match"
        yield Record(position + HEADER.size, data, damage)
        position += HEADER.size + length + FOOTER.size


@dataclass(frozen=True)
class RecordHead:
    """A record's place, length and first bytes, its data not read (an index pass)."""

    offset: int  # of the header
    length: int
    prefix: bytes


def scan_records(handle: BinaryIO, prefix_bytes: int) -> Iterator[RecordHead]:
    """Every record's head, seeking past the rest of its data: the length CRC is checked, the
    data CRC is left to whoever reads the record (read_record_at)."""
    size = os.fstat(handle.fileno()).st_size
    position = 0
    while position < size:
        handle.seek(position)
        header = handle.read(HEADER.size)
        if len(header) < HEADER.size:
            raise RecordError(f"offset {position}: a record header cut short ({len(header)} of {HEADER.size} bytes)")
        length, length_crc = HEADER.unpack(header)
        if masked_crc32c(header[:8]) != length_crc:
            raise RecordError(f"offset {position}: the record length's CRC does not match (a damaged length)")
        end = position + HEADER.size + length + FOOTER.size
        if end > size:
            raise RecordError(f"offset {position}: a record of {length} bytes cut short by the end of the file")
        yield RecordHead(position, length, handle.read(min(length, prefix_bytes)))
        position = end


def read_record_at(handle: BinaryIO, offset: int) -> Record:
    """The one record whose header starts at `offset` (its CRCs checked)."""
    for record in read_records(handle, start=offset):
        return record
    raise RecordError(f"offset {offset}: no record there (end of the file)")


def frame_record(data: bytes) -> bytes:
    """`data` framed as one TFRecord (the writer's half).

    >>> len(frame_record(b"abc"))
    19
    """
    length = struct.pack("<Q", len(data))
    return length + FOOTER.pack(masked_crc32c(length)) + data + FOOTER.pack(masked_crc32c(data))

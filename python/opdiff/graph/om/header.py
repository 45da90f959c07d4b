"""The 256-byte ModelFileHeader at the start of every .om file (docs/reference/om-layout.md §1.1, docs/reference/device-files.md §1).

Two layouts occur. A "2.0" header (version 0x20000000) has `model_num` at 156 and `platform_version`
at 160. A "1.0" header (version 0x10000000, ATC 20.x) has no `model_num`: its `platform_version`
starts at 156, and the file holds exactly one model. Bytes 0..155 are the same in both.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Optional

from opdiff.graph.errors import GraphFormatError

MAGIC = 0x444F4D49  # "IMOD" on disk
ZIP_MAGIC = b"PK\x03\x04"  # an OM2 package is a zip archive
HEADER_SIZE = 256
VERSION_1_0 = 0x10000000
VERSION_2_0 = 0x20000000
# Natural C alignment written out: the fields both generations share (offsets 0..155) ...
_COMMON = struct.Struct("<III64sIBBBB32sI32sI")
# ... then the "2.0" tail (model_num, platform_version, platform_type, 3 pad bytes, model_length,
# need_check_os_cpu_info, is_unknow_model, reserved) and the "1.0" one (no model_num; what follows
# platform_type is reserved: that struct predates model_length).
_TAIL_2_0 = struct.Struct("<I20sB3xQBB62s")
_TAIL_1_0 = struct.Struct("<20sB79s")
assert _COMMON.size == 156 and _COMMON.size + _TAIL_2_0.size == _COMMON.size + _TAIL_1_0.size == HEADER_SIZE


class ModelType(IntEnum):
    """`ModelHeaderType`: what kind of model the file holds."""

    IR_MODEL = 0
    STANDARD = 1
    OM_TINY = 2
    FLOW_MODEL = 3
    LITE = 4
    BUNDLE = 5
    RESERVED = 6


class TableKind(Enum):
    """The partition table layout that follows the header."""

    TINY = "tiny"  # u32 num, then num x {u32 type, u32 offset, u32 size}
    WIDE = "wide"  # u32 num, 4 pad bytes, then num x {u32 type, u32 pad, u64 offset, u64 size}


@dataclass(frozen=True)
class OmHeader:
    """The decoded header; `data_length`, `table_kind` and `submodel_count` say how to walk what follows.

    `model_num` is None in a "1.0" header, which has no such field; `model_length` is 0 there.

    >>> start = bytes.fromhex("494d4f44" "00010000" "00000010")  # "IMOD", headsize 256, version 0x10000000
    >>> header = parse_header(start + bytes(244), "m.om")
    >>> header.version_name, header.model_num, header.table_kind.value, header.submodel_count
    ('1.0', None, 'tiny', 1)
    """

    version: int
    length: int
    is_encrypt: int
    is_checksum: int
    modeltype: int
    genmode: int
    name: str
    om_ir_version: int
    model_num: Optional[int]
    platform_version: str
    platform_type: int
    model_length: int
    is_unknow_model: int

    @property
    def has_model_num(self) -> bool:
        """False for a "1.0" header (version below 0x20000000): its 156 is platform_version."""
        return self.version >= VERSION_2_0

    @property
    def version_name(self) -> str:
        """"1.0" or "2.0" for the known versions, else the raw value in hex."""
        return {VERSION_1_0: "1.0", VERSION_2_0: "2.0"}.get(self.version, f"0x{self.version:08X}")

    @property
    def table_kind(self) -> TableKind:
        """Current writers: 64-bit partition tables, chosen by model_length (or by a flow model)."""
        wide = self.model_length != 0 or self.modeltype == ModelType.FLOW_MODEL
        return TableKind.WIDE if wide else TableKind.TINY

    @property
    def wide_table(self) -> bool:
        """True when the partition tables are the wide (64-bit) ones."""
        return self.table_kind is TableKind.WIDE

    @property
    def data_length(self) -> int:
        """Bytes after the header: model_length when set, else the old 32-bit length (0: neither set)."""
        return self.model_length or self.length

    @property
    def submodel_count(self) -> int:
        """Sub-models to walk: one in a "1.0" file, else model_num (at least one)."""
        return 1 if self.model_num is None else max(self.model_num, 1)


def _text(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace")


def parse_header(data: bytes, path: str) -> OmHeader:
    """Decode and check the header at the start of `data`; GraphFormatError names `path` on failure."""
    if data.startswith(ZIP_MAGIC):
        raise GraphFormatError(path, "an OM2 package (zip archive), not an .om with an 'IMOD' header; "
                                     "opdiff.read_graph reads its debug graph")
    if len(data) < HEADER_SIZE:
        raise GraphFormatError(path, f"too short for an .om header ({len(data)} bytes, need {HEADER_SIZE})")
    magic, headsize, version, _checksum, length, is_encrypt, is_checksum, modeltype, genmode, name, _ops, _user, \
        om_ir_version = _COMMON.unpack_from(data, 0)
    if magic != MAGIC:
        raise GraphFormatError(path, f"wrong magic 0x{magic:08X} (an .om file starts with 'IMOD', 0x{MAGIC:08X})")
    if headsize != HEADER_SIZE:
        raise GraphFormatError(path, f"header size field is {headsize}, expected {HEADER_SIZE}")
    if is_encrypt != 0:
        raise GraphFormatError(path, f"encrypted model (is_encrypt={is_encrypt}); encrypted .om files cannot be read")
    model_num: Optional[int]
    if version >= VERSION_2_0:
        model_num, platform_version, platform_type, model_length, _check, is_unknow_model, _reserved = \
            _TAIL_2_0.unpack_from(data, _COMMON.size)
    else:  # "1.0": never read model_num (docs/reference/device-files.md §1)
        platform_version, platform_type, _reserved = _TAIL_1_0.unpack_from(data, _COMMON.size)
        model_num, model_length, is_unknow_model = None, 0, 0
    return OmHeader(
        version=version,
        length=length,
        is_encrypt=is_encrypt,
        is_checksum=is_checksum,
        modeltype=modeltype,
        genmode=genmode,
        name=_text(name),
        om_ir_version=om_ir_version,
        model_num=model_num,
        platform_version=_text(platform_version),
        platform_type=platform_type,
        model_length=model_length,
        is_unknow_model=is_unknow_model,
    )

"""The 256-byte ModelFileHeader at the start of every .om file (om-format.md §1.1)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

from opdiff.graph.errors import GraphFormatError

MAGIC = 0x444F4D49  # "IMOD" on disk
HEADER_SIZE = 256
# Natural C alignment of the struct, written out explicitly: 3 pad bytes after platform_type.
_LAYOUT = struct.Struct("<III64sIBBBB32sI32sII20sB3xQBB62s")
assert _LAYOUT.size == HEADER_SIZE


class ModelType(IntEnum):
    """`ModelHeaderType`: what kind of model the file holds."""

    IR_MODEL = 0
    STANDARD = 1
    OM_TINY = 2
    FLOW_MODEL = 3
    LITE = 4
    BUNDLE = 5
    RESERVED = 6


@dataclass(frozen=True)
class OmHeader:
    """The decoded header; `data_length` and `wide_table` say how to walk what follows.

    >>> header = parse_header(bytes.fromhex("494d4f4400010000") + bytes(248), "m.om")
    >>> header.wide_table, header.data_length
    (False, 0)
    """

    version: int
    length: int
    is_encrypt: int
    is_checksum: int
    modeltype: int
    genmode: int
    name: str
    om_ir_version: int
    model_num: int
    platform_version: str
    platform_type: int
    model_length: int
    is_unknow_model: int

    @property
    def wide_table(self) -> bool:
        """Current writers: 64-bit partition tables (set by model_length, or by a flow model)."""
        return self.model_length != 0 or self.modeltype == ModelType.FLOW_MODEL

    @property
    def data_length(self) -> int:
        """Bytes after the header: model_length when set, else the old 32-bit length."""
        return self.model_length or self.length

    @property
    def submodel_count(self) -> int:
        """Sub-models to walk; old "1.0" files have no model_num (reads 0) and hold one."""
        return max(self.model_num, 1)


def _text(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace")


def parse_header(data: bytes, path: str) -> OmHeader:
    """Decode and check the header at the start of `data`; GraphFormatError names `path` on failure."""
    if len(data) < HEADER_SIZE:
        raise GraphFormatError(path, f"too short for an .om header ({len(data)} bytes, need {HEADER_SIZE})")
    fields = _LAYOUT.unpack_from(data, 0)
    magic, headsize, version, _checksum, length, is_encrypt, is_checksum, modeltype, genmode = fields[:9]
    name, _ops, _user, om_ir_version, model_num, platform_version, platform_type = fields[9:16]
    model_length, _need_check, is_unknow_model, _reserved = fields[16:]
    if magic != MAGIC:
        raise GraphFormatError(path, f"wrong magic 0x{magic:08X} (an .om file starts with 'IMOD', 0x{MAGIC:08X})")
    if headsize != HEADER_SIZE:
        raise GraphFormatError(path, f"header size field is {headsize}, expected {HEADER_SIZE}")
    if is_encrypt != 0:
        raise GraphFormatError(path, f"encrypted model (is_encrypt={is_encrypt}); encrypted .om files cannot be read")
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

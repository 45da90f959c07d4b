"""Partition tables of the sub-models that follow the .om header (docs/reference/om-layout.md §1.2-1.4)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import List, Optional, Tuple

from opdiff.graph.errors import GraphFormatError
from opdiff.graph.om.header import HEADER_SIZE, ModelType, OmHeader, TableKind

_WIDE_HEAD = struct.Struct("<I4x")  # num, then padding to the 8-byte aligned entries
_WIDE_ENTRY = struct.Struct("<I4xQQ")  # type, mem_offset, mem_size
_TINY_HEAD = struct.Struct("<I")
_TINY_ENTRY = struct.Struct("<III")
MAX_PARTITIONS = 8  # CheckPartitionTableNum for ordinary models
MAX_FLOW_PARTITIONS = 4096


class PartitionType(IntEnum):
    """`ModelPartitionType`: what a partition holds."""

    MODEL_DEF = 0
    WEIGHTS_DATA = 1
    TASK_INFO = 2
    TBE_KERNELS = 3
    CUST_AICPU_KERNELS = 4
    SO_BINS = 5
    FLOW_MODEL = 6
    FLOW_SUBMODEL = 7
    MODEL_INOUT_INFO = 8
    STATIC_TASK_DESC = 9
    DYNAMIC_TASK_DESC = 10
    TASK_PARAM = 11
    TILING_DATA = 12
    PRE_MODEL_DESC = 20
    PRE_MODEL_SQE = 21
    PRE_KERNEL_ARGS = 22
    PRE_MODEL_DESC_EXTEND = 23
    BUNDLE_MODEL_INFO = 24
    BUNDLE_MODEL_VAR_INFO = 25
    CUSTOM_OPS = 26


_KNOWN_TYPES = frozenset(int(t) for t in PartitionType)


@dataclass(frozen=True)
class Partition:
    """One known partition: its type and where its payload lies in the file."""

    type: PartitionType
    offset: int
    size: int


@dataclass(frozen=True)
class SubModel:
    """One model context: its partitions in table order."""

    index: int
    partitions: Tuple[Partition, ...]

    def find(self, kind: PartitionType) -> Optional[Partition]:
        """The first partition of type `kind`, or None."""
        return next((p for p in self.partitions if p.type == kind), None)


def walk_submodels(data: bytes, header: OmHeader, path: str) -> Tuple[Tuple[SubModel, ...], Tuple[str, ...]]:
    """Sub-models of `data` (the whole file) and notes (skipped unknown partitions, a missing length).

    The reader follows GE's loader: payloads lie back to back after each table (mem_offset is
    ignored) and the walk must end exactly at the end of the file.
    """
    end, notes = _data_end(data, header, path)
    limit = MAX_FLOW_PARTITIONS if header.modeltype == ModelType.FLOW_MODEL else MAX_PARTITIONS
    head, entry = (_WIDE_HEAD, _WIDE_ENTRY) if header.table_kind is TableKind.WIDE else (_TINY_HEAD, _TINY_ENTRY)
    offset = HEADER_SIZE
    submodels: List[SubModel] = []
    for index in range(header.submodel_count):
        where = _submodel_name(index, header)
        if offset + head.size > end:
            raise GraphFormatError(path, f"{where}: partition table runs past the end of the file")
        (count,) = head.unpack_from(data, offset)
        if not 1 <= count <= limit:
            raise GraphFormatError(path, f"{where}: partition count {count} outside 1..{limit} "
                                         f"({header.table_kind.value} partition table at byte {offset})")
        table_end = offset + head.size + entry.size * count
        if table_end > end:
            raise GraphFormatError(path, f"{where}: partition table of {count} entries runs past the end of the file")
        cursor = table_end
        partitions: List[Partition] = []
        for k in range(count):
            kind, _mem_offset, size = entry.unpack_from(data, offset + head.size + entry.size * k)
            if cursor + size > end:
                raise GraphFormatError(path, f"{where}: partition {k} (type {kind}, {size} bytes) runs past the end of the file")
            if kind in _KNOWN_TYPES:
                partitions.append(Partition(PartitionType(kind), cursor, size))
            else:
                notes.append(f"sub-model {index}: skipped partition {k} of unknown type {kind} ({size} bytes)")
            cursor += size
        submodels.append(SubModel(index, tuple(partitions)))
        offset = cursor
    if offset != end and header.data_length == 0:
        raise GraphFormatError(path, f"{end - offset} trailing bytes after the partitions, which end at byte {offset} "
                                     f"(the header announces no data length)")
    if offset != end:
        raise GraphFormatError(path, f"partitions end at byte {offset}, but the header announces {end}")
    return tuple(submodels), tuple(notes)


def _data_end(data: bytes, header: OmHeader, path: str) -> Tuple[int, List[str]]:
    """Where the walk must end: 256 + the length the header announces, which must be the file's end.

    A header that announces no length at all (both `length` and `model_length` 0) is walked to the
    end of the file, with a note: the partition table alone then decides, and must cover the file.
    """
    announced = header.data_length
    after_header = len(data) - HEADER_SIZE
    if announced == 0 and after_header > 0:
        return len(data), [f"the header announces no data length (length and model_length are 0); "
                           f"read the {after_header} bytes after it by the partition table"]
    if announced > after_header:
        raise GraphFormatError(path, f"header says {announced} bytes follow it, but the file has {after_header} (truncated?)")
    if announced < after_header:
        raise GraphFormatError(path, f"{after_header - announced} trailing bytes after the {announced} bytes the header announces")
    return len(data), []


def _submodel_name(index: int, header: OmHeader) -> str:
    """"sub-model 1 of 3 (model_num)": names the field the count came from, for a model_num gone wrong."""
    if header.model_num is None:
        return f"sub-model {index}"
    return f"sub-model {index} of {header.submodel_count} (model_num)"

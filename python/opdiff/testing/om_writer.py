"""Writing .om files for tests, benchmarks and the demo (layout from om-format.md §1).

Written independently of the reader: fields are placed at their documented offsets one by one.

>>> import os, tempfile
>>> from opdiff.graph.om_reader import read_om
>>> with tempfile.TemporaryDirectory() as folder:
...     path = write_om(os.path.join(folder, "m.om"), [[(MODEL_DEF, simple_model_def().SerializeToString())]])
...     read_om(path).fusion_map.groups[1].relation.value
'MultiToOne'
"""

from __future__ import annotations

import io
import json
import os
import struct
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence, Tuple, Union

from opdiff.testing.model_defs import model_def_from_fusion_map, simple_model_def

MODEL_DEF, WEIGHTS_DATA, TASK_INFO, TBE_KERNELS = 0, 1, 2, 3
FLOW_MODEL, FLOW_SUBMODEL, MODEL_INOUT_INFO = 6, 7, 8
FLOW_MODEL_TYPE = 3

Partition = Tuple[int, bytes]  # (ModelPartitionType value, payload)
SubModel = Sequence[Partition]
PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class HeaderFields:
    """Header values a test may want to vary; the lengths are computed."""

    name: str = "opdiff_test_model"
    version: int = 0x20000000
    modeltype: int = 0
    is_encrypt: int = 0
    model_num: int = -1  # -1: the number of sub-models written (0 for a legacy single model)
    om_ir_version: int = 2
    platform_version: str = "1.11.z.0"
    is_unknow_model: int = 0
    magic: int = 0x444F4D49


def om_bytes(submodels: Sequence[SubModel], *, legacy: bool = False, header: HeaderFields = HeaderFields()) -> bytes:
    """A whole .om file: header, then per sub-model its partition table and payloads.

    `legacy` writes the pre-2023 generation: 32-bit `length`, `model_length` 0, 12-byte table entries
    (a flow model always gets the wide table, as the reader expects).
    """
    wide = not legacy or header.modeltype == FLOW_MODEL_TYPE
    body = b"".join(_submodel_bytes(parts, wide) for parts in submodels)
    model_num = header.model_num if header.model_num >= 0 else (0 if legacy and len(submodels) == 1 else len(submodels))
    return _header_bytes(header, len(body), legacy, model_num) + body


def write_om(path: PathLike, submodels: Sequence[SubModel], *, legacy: bool = False, header: HeaderFields = HeaderFields()) -> Path:
    """Write an .om file (to a temporary name, then renamed); returns its path."""
    return _write_atomically(Path(path), om_bytes(submodels, legacy=legacy, header=header))


def write_fusion_map_om(path: PathLike, fusion_map: Any, **options: Any) -> Path:
    """An .om holding one sub-model whose MODEL_DEF encodes `fusion_map` (plus a small weights partition)."""
    payload = model_def_from_fusion_map(fusion_map).SerializeToString()
    return write_om(path, [[(MODEL_INOUT_INFO, b""), (MODEL_DEF, payload), (WEIGHTS_DATA, bytes(16))]], **options)


def write_om2(path: PathLike, graph_json: Any, entry: str = "debug/visual.json") -> Path:
    """An OM2 package: a zip holding the graph JSON at `entry` plus a placeholder model binary."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("model/model.bin", b"\0" * 8)
        package.writestr(entry, json.dumps(graph_json))
    return _write_atomically(Path(path), buffer.getvalue())


def _submodel_bytes(partitions: SubModel, wide: bool) -> bytes:
    table = [struct.pack("<I", len(partitions)) + (b"\0" * 4 if wide else b"")]
    offset = 0
    for kind, payload in partitions:
        entry = struct.pack("<IIQQ", kind, 0, offset, len(payload)) if wide else struct.pack("<III", kind, offset, len(payload))
        table.append(entry)
        offset += len(payload)
    return b"".join(table) + b"".join(payload for _, payload in partitions)


def _header_bytes(fields: HeaderFields, body_length: int, legacy: bool, model_num: int) -> bytes:
    header = bytearray(256)
    struct.pack_into("<I", header, 0, fields.magic)
    struct.pack_into("<I", header, 4, 256)
    struct.pack_into("<I", header, 8, fields.version)
    struct.pack_into("<I", header, 76, body_length if legacy else 0)
    header[80] = fields.is_encrypt
    header[81] = 1  # is_checksum: UNCHECK
    header[82] = fields.modeltype
    header[83] = 0  # genmode: offline
    header[84 : 84 + 31] = fields.name.encode()[:31].ljust(31, b"\0")
    struct.pack_into("<I", header, 152, fields.om_ir_version)
    struct.pack_into("<I", header, 156, model_num)
    header[160 : 160 + 19] = fields.platform_version.encode()[:19].ljust(19, b"\0")
    if not legacy:
        struct.pack_into("<Q", header, 184, body_length)
        header[193] = fields.is_unknow_model
    return bytes(header)


def _write_atomically(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    return path


__all__ = [
    "FLOW_MODEL", "FLOW_MODEL_TYPE", "FLOW_SUBMODEL", "HeaderFields", "MODEL_DEF", "MODEL_INOUT_INFO", "TASK_INFO",
    "TBE_KERNELS", "WEIGHTS_DATA", "om_bytes", "simple_model_def", "write_fusion_map_om", "write_om", "write_om2",
]

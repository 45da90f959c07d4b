"""Writing .om offline models (layout from docs/reference/om-layout.md §1, docs/reference/device-files.md §1):
test data for your own fusion map, the demo's `model.om`, and the files the tests read.

Written independently of the reader (graph/om/reader.py): fields are placed at their documented
offsets one by one, so that a layout mistake in one shows up against the other. `variant` picks one
of the three header generations real ATC output has (`OmVariant`).

>>> import os, tempfile
>>> from opdiff.graph.model_def_builder import simple_model_def
>>> from opdiff.graph.om.reader import read_om
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
import zipfile
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple, Union

from opdiff.fileio.atomic import write_bytes
from opdiff.graph.model_def_builder import model_def_from_fusion_map

MODEL_DEF, WEIGHTS_DATA, TASK_INFO, TBE_KERNELS = 0, 1, 2, 3
FLOW_MODEL, FLOW_SUBMODEL, MODEL_INOUT_INFO = 6, 7, 8
FLOW_MODEL_TYPE = 3
VERSION_1_0, VERSION_2_0 = 0x10000000, 0x20000000

Partition = Tuple[int, bytes]  # (ModelPartitionType value, payload)
SubModel = Sequence[Partition]
PathLike = Union[str, "os.PathLike[str]"]


class OmVariant(Enum):
    """The header generations of real ATC output (docs/reference/device-files.md §1)."""

    V1_0 = "1.0"  # ATC 20.x: version 0x10000000, no model_num, platform_version at 156, tiny table, `length`
    V2_TINY = "2.0 tiny"  # version 0x20000000, model_num at 156, platform_version at 160, tiny table, `length`
    V2_WIDE = "2.0 wide"  # ATC 8.x: as 2.0 tiny, but `model_length` (off 184) and the wide table; `length` 0


@dataclass(frozen=True)
class HeaderFields:
    """Header values a test may want to vary; the lengths are computed."""

    name: str = "opdiff_test_model"
    version: Optional[int] = None  # None: the variant's own (0x10000000 for "1.0", else 0x20000000)
    modeltype: int = 0
    is_encrypt: int = 0
    model_num: int = -1  # -1: the number of sub-models written (never written in a "1.0" header)
    om_ir_version: int = 2
    platform_version: str = "1.11.z.0"
    is_unknow_model: int = 0
    magic: int = 0x444F4D49


def om_bytes(submodels: Sequence[SubModel], *, variant: OmVariant = OmVariant.V2_WIDE,
             header: HeaderFields = HeaderFields()) -> bytes:
    """A whole .om file: header, then per sub-model its partition table and payloads.

    A flow model always gets the wide table, as the loader expects. A "1.0" file holds one model.

    >>> data = om_bytes([[(MODEL_DEF, b"")]], variant=OmVariant.V1_0)
    >>> data[156:160], int.from_bytes(data[76:80], "little") == len(data) - 256
    (b'1.11', True)
    """
    if variant is OmVariant.V1_0 and len(submodels) != 1:
        raise ValueError(f"a 1.0 .om file holds exactly one model, not {len(submodels)}")
    wide = variant is OmVariant.V2_WIDE or header.modeltype == FLOW_MODEL_TYPE
    body = b"".join(_submodel_bytes(parts, wide) for parts in submodels)
    model_num = header.model_num if header.model_num >= 0 else len(submodels)
    return _header_bytes(header, len(body), variant, model_num) + body


def write_om(path: PathLike, submodels: Sequence[SubModel], *, variant: OmVariant = OmVariant.V2_WIDE,
             header: HeaderFields = HeaderFields()) -> Path:
    """Write an .om file (to a temporary name, then renamed); returns its path.

    >>> import os, tempfile
    >>> from opdiff.graph.om.reader import read_om
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     om = read_om(write_om(os.path.join(folder, "m.om"), [[(MODEL_DEF, b"")]], variant=OmVariant.V1_0))
    ...     om.header.version == VERSION_1_0, len(om.fusion_map.ops)
    (True, 0)
    """
    return _write_atomically(Path(path), om_bytes(submodels, variant=variant, header=header))


def atc_partitions(model_def: bytes, variant: OmVariant = OmVariant.V2_WIDE) -> List[Partition]:
    """The partitions a static ATC build of `variant`'s era writes, in its order, around `model_def`.

    Old files have four, in the order MODEL_DEF, WEIGHTS_DATA, TBE_KERNELS, TASK_INFO (0, 1, 3, 2);
    ATC 8.x puts MODEL_INOUT_INFO first (docs/reference/om-layout.md §1.3). The other payloads are placeholders.

    >>> [kind for kind, _ in atc_partitions(b"", OmVariant.V1_0)]
    [0, 1, 3, 2]
    """
    old = [(MODEL_DEF, model_def), (WEIGHTS_DATA, bytes(16)), (TBE_KERNELS, b"kernels"), (TASK_INFO, b"tasks")]
    return old if variant is not OmVariant.V2_WIDE else [(MODEL_INOUT_INFO, bytes(12))] + old


def write_fusion_map_om(path: PathLike, fusion_map: Any, *, variant: OmVariant = OmVariant.V2_WIDE,
                        header: HeaderFields = HeaderFields()) -> Path:
    """An .om holding one sub-model whose MODEL_DEF encodes `fusion_map`, among the partitions ATC
    writes: the offline model of a fusion rule you have as atc JSON or built (`opdiff demo` writes
    its model.om so). Reading it back gives an equal FusionMap.

    >>> import os, tempfile
    >>> from opdiff.graph.read import read_graph
    >>> from opdiff.graph.rule_builder import RuleOp, RuleOutput, fusion_rule
    >>> fm = fusion_rule([RuleOp("x", "Data", 0, [], ["x"], [RuleOutput("x", 0, [1, 4])]),
    ...                   RuleOp("relu", "Relu", 1, ["x:0"], ["relu"], [RuleOutput("relu", 0, [1, 4])])])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     read_graph(write_fusion_map_om(os.path.join(folder, "model.om"), fm)).ops == fm.ops
    True
    """
    payload = model_def_from_fusion_map(fusion_map).SerializeToString()
    return write_om(path, [atc_partitions(payload, variant)], variant=variant, header=header)


def write_om2(path: PathLike, graph_json: Any, entry: str = "debug/visual.json", *,
              model_binary: bytes = b"\0" * 8) -> Path:
    """An OM2 package: a zip holding the graph JSON at `entry` (none when `graph_json` is None) and
    `model_binary` (e.g. an .om of any header variant) as its model.

    >>> import os, tempfile
    >>> from opdiff.graph.read import read_graph
    >>> doc = {"graph": [{"name": "g", "op": [{"name": "x", "type": "Data"}]}]}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     [op.name for op in read_graph(write_om2(os.path.join(folder, "m.om2"), doc)).ops]
    ['x']
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("model/model.bin", model_binary)
        if graph_json is not None:
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


def _header_bytes(fields: HeaderFields, body_length: int, variant: OmVariant, model_num: int) -> bytes:
    header = bytearray(256)
    version = fields.version if fields.version is not None else (VERSION_1_0 if variant is OmVariant.V1_0 else VERSION_2_0)
    struct.pack_into("<I", header, 0, fields.magic)
    struct.pack_into("<I", header, 4, 256)
    struct.pack_into("<I", header, 8, version)
    struct.pack_into("<I", header, 76, 0 if variant is OmVariant.V2_WIDE else body_length)
    header[80] = fields.is_encrypt
    header[81] = 1  # is_checksum: UNCHECK
    header[82] = fields.modeltype
    header[83] = 0  # genmode: offline
    header[84 : 84 + 31] = fields.name.encode()[:31].ljust(31, b"\0")
    struct.pack_into("<I", header, 152, fields.om_ir_version)
    if variant is OmVariant.V1_0:  # no model_num: platform_version starts at 156, the rest is reserved
        header[156 : 156 + 19] = fields.platform_version.encode()[:19].ljust(19, b"\0")
        return bytes(header)
    struct.pack_into("<I", header, 156, model_num)
    header[160 : 160 + 19] = fields.platform_version.encode()[:19].ljust(19, b"\0")
    if variant is OmVariant.V2_WIDE:
        struct.pack_into("<Q", header, 184, body_length)
        header[193] = fields.is_unknow_model
    return bytes(header)


def _write_atomically(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_bytes(path, data)


__all__ = [
    "FLOW_MODEL",
    "FLOW_MODEL_TYPE",
    "FLOW_SUBMODEL",
    "MODEL_DEF",
    "MODEL_INOUT_INFO",
    "TASK_INFO",
    "TBE_KERNELS",
    "WEIGHTS_DATA",
    "HeaderFields",
    "OmVariant",
    "atc_partitions",
    "om_bytes",
    "write_fusion_map_om",
    "write_om",
    "write_om2",
]

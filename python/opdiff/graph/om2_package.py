"""OM2 packages: a zip whose debug/visual.json holds the graph in the atc JSON shape (om-format.md §1.1)."""

from __future__ import annotations

import fnmatch
import json
import zipfile
import zlib
from typing import Optional

from opdiff.graph.atc_json import fusion_map_from_json
from opdiff.graph.errors import GraphFormatError
from opdiff.graph.fusion_map import FusionMap

ZIP_MAGIC = b"PK\x03\x04"
VISUAL_JSON = "debug/visual.json"
VISUAL_JSON_PATTERN = "debug/ge_visual_*.json"
# What zipfile raises on damaged archives besides BadZipFile (found by bench/fuzz, target om):
# names flagged UTF-8 that are not, corrupt deflate streams, unknown compression methods, short
# reads, impossible offsets, encrypted entries (RuntimeError: "password required").
_BROKEN_ZIP = (zipfile.BadZipFile, UnicodeDecodeError, zlib.error, NotImplementedError, EOFError, ValueError, OSError,
               RuntimeError)


def read_om2(path: str) -> FusionMap:
    """The FusionMap of the OM2 package at `path`, read from its debug graph JSON."""
    try:
        with zipfile.ZipFile(path) as package:
            entry = _graph_entry(package.namelist())
            if entry is None:
                raise GraphFormatError(path, f"OM2 package without {VISUAL_JSON} or {VISUAL_JSON_PATTERN}")
            raw = package.read(entry)
    except GraphFormatError:
        raise  # a ValueError too, but already the right message
    except _BROKEN_ZIP as error:
        raise GraphFormatError(path, f"broken OM2 (zip) package: {error}") from None
    try:
        doc = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise GraphFormatError(path, f"{entry} is not valid JSON ({error})") from None
    return fusion_map_from_json(doc, f"{path}!{entry}")


def _graph_entry(names: "list[str]") -> Optional[str]:
    if VISUAL_JSON in names:
        return VISUAL_JSON
    return next((name for name in sorted(names) if fnmatch.fnmatch(name, VISUAL_JSON_PATTERN)), None)

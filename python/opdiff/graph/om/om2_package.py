"""OM2 packages: a zip whose debug/visual.json holds the graph in the atc JSON shape (docs/reference/om-layout.md §1.1)."""

from __future__ import annotations

import fnmatch
import json
import lzma
import os
import zipfile
import zlib
from typing import Any, Optional, Tuple

from opdiff.graph.atc_json import fusion_map_from_json
from opdiff.graph.errors import GraphFormatError
from opdiff.graph.fusion_map import FusionMap

VISUAL_JSON = "debug/visual.json"
VISUAL_JSON_PATTERN = "debug/ge_visual_*.json"
# What zipfile raises on damaged archives besides BadZipFile (found by bench/fuzz, target om):
# names flagged UTF-8 that are not, corrupt deflate streams, unknown compression methods, short
# reads, impossible offsets, encrypted entries (RuntimeError: "password required").
# What zipfile raises for a broken archive or entry; an LZMA entry with bad filter properties raises
# lzma.LZMAError, which derives from none of the others (found by the om fuzz target).
_BROKEN_ZIP = (zipfile.BadZipFile, UnicodeDecodeError, zlib.error, lzma.LZMAError, NotImplementedError, EOFError,
               ValueError, OSError, RuntimeError)


# Deflate can expand data about 1000-fold; real graph JSON compresses 10- to 30-fold (a graph of
# 100,000 identical ops about 230-fold). An entry may expand to at most this many times the size of
# the whole package, so a small hostile package cannot make opdiff hold gigabytes.
MAX_EXPANSION = 256
_MIN_ENTRY_LIMIT = 1 << 20


def entry_limit(package_size: int) -> int:
    """The most bytes a graph JSON entry may expand to in a package of `package_size` bytes.

    >>> entry_limit(1000), entry_limit(10 << 20) == 2560 << 20
    (1048576, True)
    """
    return max(_MIN_ENTRY_LIMIT, MAX_EXPANSION * package_size)


def read_om2(path: str) -> FusionMap:
    """The FusionMap of the OM2 package at `path`, read from its debug graph JSON."""
    return fusion_map_from_json(*load_om2_json(path))


def load_om2_json(path: str) -> Tuple[Any, str]:
    """The debug graph JSON document of the OM2 package at `path`, and its name for errors (`path!entry`).

    >>> import os, tempfile
    >>> from opdiff.graph.om.writer import write_om2
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     doc, name = load_om2_json(str(write_om2(os.path.join(folder, "m.om"), {"graph": []})))
    >>> doc, name.endswith("m.om!debug/visual.json")
    ({'graph': []}, True)
    """
    try:
        with zipfile.ZipFile(path) as package:
            entry = _graph_entry(package.namelist())
            if entry is None:
                raise GraphFormatError(path, f"OM2 package without {VISUAL_JSON} or {VISUAL_JSON_PATTERN}")
            raw = _read_bounded(package, entry, path)
    except GraphFormatError:
        raise  # a ValueError too, but already the right message
    except _BROKEN_ZIP as error:
        raise GraphFormatError(path, f"broken OM2 (zip) package: {error}") from None
    try:
        doc = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise GraphFormatError(path, f"{entry} is not valid JSON ({error})") from None
    return doc, f"{path}!{entry}"


def _read_bounded(package: zipfile.ZipFile, entry: str, path: str) -> bytes:
    """The bytes of `entry`, refused past `entry_limit`: first by the size the package declares, then
    by what actually comes out (the declared size may lie, the data may be a zip bomb)."""
    limit = entry_limit(os.path.getsize(path))
    declared = package.getinfo(entry).file_size
    if declared > limit:
        raise GraphFormatError(path, f"{entry} declares {declared} bytes uncompressed, more than {MAX_EXPANSION} times "
                                     f"the package's size ({limit} bytes at most)")
    with package.open(entry) as stream:
        raw = stream.read(limit + 1)  # zipfile stops at the declared size; the bound holds whatever it does
    if len(raw) > limit:
        raise GraphFormatError(path, f"{entry} expands past {limit} bytes, more than {MAX_EXPANSION} times the package's size")
    return raw


def _graph_entry(names: list[str]) -> Optional[str]:
    if VISUAL_JSON in names:
        return VISUAL_JSON
    return next((name for name in sorted(names) if fnmatch.fnmatch(name, VISUAL_JSON_PATTERN)), None)

"""OM2 packages whose graph JSON claims or expands to far more than the package could hold: refused
(GraphFormatError naming the file) in bounded memory, while real packages still read.

Each hostile case runs in a child process that reports how far its peak RSS grew while reading, as in
test_hostile_sizes.py.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import opdiff
from opdiff.graph.om.om2_package import MAX_EXPANSION, entry_limit
from opdiff.graph.om.writer import write_om2
from tests.support.own_peak import with_own_peak

GROWTH_LIMIT_MB = 48  # what reading any small file may cost; trusting the claims below costs more
SMALL_GRAPH = {"graph": [{"name": "g", "op": [{"name": "x", "type": "Data"}]}]}

CHILD = textwrap.dedent(
    """
    import json, resource, sys
    import opdiff

    def peak_kb():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    valid, hostile = sys.argv[1], sys.argv[2]
    opdiff.read_graph(valid)  # imports and first-use caches are counted before the measurement
    before = peak_kb()
    try:
        opdiff.read_graph(hostile)
        outcome = "read"
    except opdiff.graph.GraphFormatError as error:
        outcome = "refused: " + str(error)
    print(json.dumps({"outcome": outcome, "growth_mb": (peak_kb() - before) / 1024}))
    """
)


def read_in_child(valid: Path, hostile: Path) -> dict:
    result = subprocess.run(with_own_peak([sys.executable, "-c", CHILD, str(valid), str(hostile)]), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def declare_size(path: Path, entry: str, size: int) -> None:
    """Overwrite the uncompressed size `entry` declares, in its local header and its central directory record."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as package:
        info = package.getinfo(entry)
    struct.pack_into("<I", data, info.header_offset + 22, size)  # local file header
    position = data.find(b"PK\x01\x02")
    while data[position + 46 : position + 46 + struct.unpack_from("<H", data, position + 28)[0]] != entry.encode():
        position = data.find(b"PK\x01\x02", position + 4)
    struct.pack_into("<I", data, position + 24, size)  # central directory record
    path.write_bytes(bytes(data))


def test_declared_size_past_the_limit_is_refused_before_reading(tmp_path):
    valid = write_om2(tmp_path / "valid.om", SMALL_GRAPH)
    hostile = write_om2(tmp_path / "hostile.om", SMALL_GRAPH)
    declare_size(hostile, "debug/visual.json", 0xFFFFFFF0)
    with zipfile.ZipFile(hostile) as package:
        assert package.getinfo("debug/visual.json").file_size == 0xFFFFFFF0
    report = read_in_child(valid, hostile)
    assert report["outcome"].startswith(f"refused: {hostile}: debug/visual.json declares 4294967280 bytes uncompressed"), report
    assert report["growth_mb"] < GROWTH_LIMIT_MB, report


def write_bomb(path: Path) -> Path:
    """Valid JSON padded with 64 MiB of spaces: deflated about 1000-fold, to ~64 KiB."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as package:
        package.writestr("debug/visual.json", json.dumps(SMALL_GRAPH).encode() + b" " * (64 << 20))
    assert path.stat().st_size * MAX_EXPANSION < 64 << 20
    return path


def test_zip_bomb_is_refused_by_its_declared_size(tmp_path):
    valid = write_om2(tmp_path / "valid.om", SMALL_GRAPH)
    hostile = write_bomb(tmp_path / "bomb.om")
    report = read_in_child(valid, hostile)
    assert report["outcome"].startswith(f"refused: {hostile}: debug/visual.json declares 67108929 bytes"), report
    assert report["growth_mb"] < GROWTH_LIMIT_MB, report


def test_zip_bomb_declaring_a_small_size_is_refused_after_a_bounded_read(tmp_path):
    """The declared size lies: at most that much (and at most 256 times the package) is inflated,
    then the checksum of the short data fails."""
    valid = write_om2(tmp_path / "valid.om", SMALL_GRAPH)
    hostile = write_bomb(tmp_path / "bomb.om")
    declare_size(hostile, "debug/visual.json", 1000)
    report = read_in_child(valid, hostile)
    assert report["outcome"].startswith(f"refused: {hostile}: broken OM2 (zip) package"), report
    assert report["growth_mb"] < GROWTH_LIMIT_MB, report


def test_real_packages_read_up_to_the_limit(tmp_path):
    """Highly repetitive graph JSON (the same op 20,000 times, ~230-fold compression) still reads."""
    ops = [{"name": f"op{k % 10}", "type": "Relu", "attr": [{"key": "_datadump_original_op_names", "value": {"list": {"s": ["a"]}}}]}
           for k in range(20_000)]
    path = tmp_path / "repetitive.om"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as package:
        package.writestr("debug/visual.json", json.dumps({"graph": [{"name": "g", "op": ops}]}, indent=2))
    with zipfile.ZipFile(path) as package:
        assert package.getinfo("debug/visual.json").file_size <= entry_limit(path.stat().st_size)
    assert len(opdiff.read_graph(path).ops) == 20_000

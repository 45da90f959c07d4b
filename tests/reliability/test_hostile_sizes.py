"""Files whose headers claim huge sizes, counts or dims: each is refused (DumpFormatError) before
anything is allocated from the claim, so reading it costs what reading any small file costs.

Each case runs in a child process that reports how far its peak RSS grew while reading; a reader
that trusted the claim would reserve gigabytes (or die) there.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, List

import pytest

from opdiff.dumps import dump_data_pb2 as pb
from tests.support.own_peak import with_own_peak

# Growth of peak RSS allowed while reading one hostile file (a few MB of buffers and Python
# objects; ASan's bookkeeping fits too). Trusting any claim below would take 100x more.
GROWTH_LIMIT_MB = 48


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def v2(header: bytes, payload: bytes = b"", length: int | None = None) -> bytes:
    return struct.pack("<Q", len(header) if length is None else length) + header + payload


def output(dims: List[int], size: int, data_type: int = pb.DT_FLOAT) -> bytes:
    shape = field(1, b"".join(varint(d) for d in dims))  # packed dims
    return varint(1 << 3) + varint(data_type) + varint(2 << 3) + varint(2) + field(3, shape) + varint(6 << 3) + varint(size)


def nano(head_after_magic: bytes, head_length: int | None = None) -> bytes:
    head = struct.pack("<II", 0x5A5A5A5A, 1) + head_after_magic
    return struct.pack("<Q", len(head) if head_length is None else head_length) + head


def npy(header_text: bytes, version: int = 1, length: int | None = None) -> bytes:
    prefix = b"\x93NUMPY" + bytes([version, 0])
    size = len(header_text) if length is None else length
    return prefix + (struct.pack("<H", size) if version == 1 else struct.pack("<I", size)) + header_text


HOSTILE: Dict[str, bytes] = {
    "v2 header length 2^63": v2(b"\x0a\x01x", length=1 << 63),
    "v2 header length 2^64-1": v2(b"", length=(1 << 64) - 1),
    "v2 length-delimited field of 2^60 bytes": v2(varint(6 << 3 | 2) + varint(1 << 60) + b"op"),
    "v2 output size 2^62": v2(field(6, b"op") + field(3, output([4], 1 << 62)), bytes(16)),
    "v2 dims multiplying to 2^80": v2(field(6, b"op") + field(3, output([1 << 40, 1 << 40], 64)), bytes(64)),
    "v2 one dim of 2^63": v2(field(6, b"op") + field(3, output([1 << 63], 64)), bytes(64)),
    "v2 100000 dims": v2(field(6, b"op") + field(3, output([1] * 100_000, 4)), bytes(4)),
    "v1 data claiming 2^40 bytes": field(6, b"op") + field(3, output([4], 16) + varint(5 << 3 | 2) + varint(1 << 40)),
    "nano head length 2^63": nano(b"", head_length=1 << 63),
    "nano tensor count 2^32-1": nano(struct.pack("<II", 5, 8) + struct.pack("<II", 0xFFFFFFFF, 0)),
    "nano TLV of 2^32-1 bytes": nano(struct.pack("<II", 4, 0xFFFFFFFF)),
    "nano dims record of 2^20 dims": nano(struct.pack("<II", 5, 4 + 52 + 8) + struct.pack("<I", 1) + struct.pack("<iiiiiiQQQI", 0, 2, 0, 0, 0, 0, 0, 0, 4, 8)
                                          + struct.pack("<II", 0, 8 << 20)),
    "npy header length 2^32-1": npy(b"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", version=2, length=0xFFFFFFFF),
    "npy shape (2^40, 2^40)": npy(b"{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }") + bytes(64),
    "npy shape with 100000 dims": npy(b"{'descr': '<f4', 'fortran_order': False, 'shape': (" + b"1, " * 100_000 + b"), }", version=2),
    "npy dim past 2^64": npy(b"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }"),
}

CHILD = textwrap.dedent(
    """
    import json, resource, sys
    import opdiff

    def peak_kb():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    # Warm up every code path once on a valid file, so imports and first-use caches are counted
    # before the measurement, not in it.
    valid, hostile = sys.argv[1], sys.argv[2]
    for tensor in opdiff.read_dump(valid).tensors:
        tensor.to_numpy()
    before = peak_kb()
    try:
        dump = opdiff.read_dump(hostile)
        for tensor in dump.tensors:
            tensor.to_numpy()
        outcome = "read"
    except opdiff.DumpFormatError as error:
        outcome = "refused: " + str(error)[-200:]
    print(json.dumps({"outcome": outcome, "growth_mb": (peak_kb() - before) / 1024}))
    """
)


def read_in_child(valid: Path, hostile: Path) -> dict:
    result = subprocess.run(with_own_peak([sys.executable, "-c", CHILD, str(valid), str(hostile)]), capture_output=True,
                            text=True, timeout=120, env=dict(os.environ))
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def valid_file(tmp_path_factory) -> Path:
    import numpy as np

    import opdiff

    return opdiff.write_dump(tmp_path_factory.mktemp("valid") / "Add.add.1.1.1700000000000000", "add",
                             inputs=[np.ones((2, 3), np.float32)], outputs=[np.ones(6, np.float16)])


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_claims_are_refused_in_bounded_memory(name, tmp_path, valid_file):
    data = HOSTILE[name]
    path = tmp_path / ("x.npy" if name.startswith("npy") else "Op.op.1.1.1700000000000000")
    path.write_bytes(data)
    report = read_in_child(valid_file, path)
    assert report["outcome"].startswith("refused"), report
    assert report["growth_mb"] < GROWTH_LIMIT_MB, report


def test_a_header_of_many_tiny_tensors_is_refused_in_bounded_memory(tmp_path, valid_file):
    """Each empty output is 14 bytes of header but hundreds decoded: past the per-file limit of
    tensors the header is refused before they pile up."""
    path = tmp_path / "Op.op.1.1.1700000000000000"
    path.write_bytes(v2(field(6, b"op") + field(3, output([0], 0)) * 200_000))
    report = read_in_child(valid_file, path)
    assert "tensors in one file" in report["outcome"], report
    assert report["growth_mb"] < GROWTH_LIMIT_MB, report


def test_tensor_limit_boundary():
    from opdiff import _core

    limit = 1 << 16
    assert len(_core.decode_dump_header(field(3, b"") * limit)["outputs"]) == limit
    with pytest.raises(_core.DumpFormatError, match="more than 65536 tensors"):
        _core.decode_dump_header(field(3, b"") * (limit // 2) + field(4, b"") * (limit // 2 + 1))

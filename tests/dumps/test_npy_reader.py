""".npy reading in the core: format versions 1-3, C and Fortran order, ml_dtypes names, and
every kind of malformed header or data."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import opdiff
from opdiff.dumps import save_npy


def assert_bad(path, fragment: str):
    with pytest.raises(opdiff.DumpFormatError) as caught:
        opdiff.read_dump(path)
    assert str(path) in str(caught.value)
    assert fragment in str(caught.value)


def npy_bytes(header: str, data: bytes = b"", version: int = 1) -> bytes:
    text = header.encode()
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text + data
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", len(text)) + text + data


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"\x93NUMPY\x07\x00\x10\x00", "version"),
        (npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }")[:-10], "past the end"),
        (npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", b"\x00" * 8), "needs 16 bytes"),
        (npy_bytes("{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }", b"\x00" * 4), "unsupported dtype"),
        (npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", b"\x00" * 8), "unsupported dtype"),
        (npy_bytes("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", b"\x00" * 8), "structured"),
        (npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }"), "multiply past"),
        (npy_bytes("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }"), "fortran_order"),
        (npy_bytes("{'descr': '<f4', 'shape': (2,), }", b"\x00" * 8), "lacks"),
        (npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,", b""), "header ends early"),
    ],
)
def test_bad_npy_files(tmp_path, content, fragment):
    (tmp_path / "bad.npy").write_bytes(content)
    assert_bad(tmp_path / "bad.npy", fragment)


def test_npy_versions_orders_and_ml_dtypes(tmp_path):
    import ml_dtypes

    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.save(tmp_path / "c.npy", x)
    np.save(tmp_path / "f.npy", np.asfortranarray(x))
    for name in ("c.npy", "f.npy"):
        assert np.array_equal(opdiff.read_dump(tmp_path / name).outputs[0].to_numpy(), x)
    for version in (2, 3):
        header = "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }"
        (tmp_path / f"v{version}.npy").write_bytes(npy_bytes(header, np.array([1, -2, 3], np.int16).tobytes(), version))
        assert opdiff.read_dump(tmp_path / f"v{version}.npy").outputs[0].to_numpy().tolist() == [1, -2, 3]
    for dtype in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2):
        y = np.linspace(-2, 2, 12).astype(dtype).reshape(3, 4)
        save_npy(tmp_path / "m.npy", y)
        got = opdiff.read_dump(tmp_path / "m.npy").outputs[0].to_numpy()
        assert got.dtype == y.dtype and np.array_equal(got.view(np.uint8), y.view(np.uint8))
    save_npy(tmp_path / "mf.npy", x, fortran_order=True)
    assert np.array_equal(opdiff.read_dump(tmp_path / "mf.npy").outputs[0].to_numpy(), x)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                                   "bool", "complex64", "complex128"])
def test_every_numpy_dtype_reads_back(tmp_path, dtype):
    x = (np.arange(30) % 7 - 3).astype(dtype).reshape(5, 6)
    np.save(tmp_path / "a.npy", x)
    got = opdiff.read_dump(tmp_path / "a.npy").outputs[0]
    assert got.dtype == ("bool" if dtype == "bool" else dtype)
    assert np.array_equal(got.to_numpy(), x) and got.to_numpy().dtype == x.dtype


def test_npy_is_read_without_loading_it_whole(tmp_path):
    x = np.arange(1 << 16, dtype=np.float32)
    np.save(tmp_path / "big.npy", x)
    stored = opdiff.read_dump(tmp_path / "big.npy").outputs[0].stored_bytes()
    assert not stored.flags.writeable and not stored.flags.owndata  # a view of the mapping
    assert stored[:8].tobytes() == x[:2].tobytes()

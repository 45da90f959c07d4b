"""Every kind of bad input gives opdiff.DumpFormatError (a ValueError) naming the file and the
problem, never a crash."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import opdiff
from opdiff.dumps import DumpForm, Tensor
from opdiff.dumps import dump_data_pb2 as pb


def v2_file(path, header: pb.DumpData, payload: bytes = b""):
    message = header.SerializeToString()
    path.write_bytes(struct.pack("<Q", len(message)) + message + payload)
    return path


def one_output(data_type=pb.DT_FLOAT, format=pb.FORMAT_ND, dims=(4,), size=16, original=()):
    header = pb.DumpData(version="2.0", op_name="op")
    out = header.output.add(data_type=data_type, format=format, size=size)
    out.shape.dim.extend(dims)
    out.original_shape.dim.extend(original)
    return header


def assert_bad(path, fragment: str):
    with pytest.raises(opdiff.DumpFormatError) as caught:
        opdiff.read_dump(path)
    assert str(path) in str(caught.value)
    assert fragment in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_empty_file(tmp_path):
    (tmp_path / "e").write_bytes(b"")
    assert_bad(tmp_path / "e", "empty file")


@pytest.mark.parametrize("length", [3, 8])
def test_file_shorter_than_the_length_prefix(tmp_path, length):
    (tmp_path / "s").write_bytes(b"\x01" * length)
    assert_bad(tmp_path / "s", "not a dump file")


@pytest.mark.parametrize("claimed", [2**64 - 1, 2**63, 100])
def test_header_length_past_the_end(tmp_path, claimed):
    (tmp_path / "h").write_bytes(struct.pack("<Q", claimed) + b"\x0a\x03" + b"2.0" * 5)
    assert_bad(tmp_path / "h", "header length")


def test_truncated_payload(tmp_path):
    path = v2_file(tmp_path / "t", one_output(), b"\x00" * 12)
    assert_bad(path, "truncated payload")


def test_size_smaller_than_shape_times_itemsize(tmp_path):
    path = v2_file(tmp_path / "z", one_output(dims=(4, 4), size=16), b"\x00" * 16)
    assert_bad(path, "needs 64 bytes")


def test_unknown_data_type_number(tmp_path):
    path = v2_file(tmp_path / "d", one_output(data_type=99), b"\x00" * 16)
    assert_bad(path, "unknown data type number 99")


def test_unknown_format_number(tmp_path):
    path = v2_file(tmp_path / "f", one_output(format=77), b"\x00" * 16)
    assert_bad(path, "unknown format number 77")


def test_dims_whose_product_overflows(tmp_path):
    path = v2_file(tmp_path / "o", one_output(dims=(2**40, 2**40)), b"\x00" * 16)
    assert_bad(path, "multiply past 2^56")


def test_empty_dims_beside_huge_ones(tmp_path):
    path = v2_file(tmp_path / "o", one_output(dims=(0, 2**57)), b"\x00" * 16)
    assert_bad(path, "multiply past 2^56")


def test_garbage_protobuf_header(tmp_path):
    garbage = b"\x1a\xff\xff\x03\x00\x00"
    (tmp_path / "g").write_bytes(struct.pack("<Q", len(garbage)) + garbage)
    assert_bad(tmp_path / "g", "protobuf")


@pytest.mark.parametrize("content", [b"hello world, this is not a dump\n", bytes(range(256)) * 3, b"PK\x03\x04" + b"\x00" * 40])
def test_non_dump_files(tmp_path, content):
    (tmp_path / "x").write_bytes(content)
    assert_bad(tmp_path / "x", "not a dump file")


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(opdiff.DumpFormatError, match="cannot open"):
        opdiff.read_dump(tmp_path / "absent")
    with pytest.raises(opdiff.DumpFormatError, match=r"not a regular file|cannot"):
        opdiff.read_dump(tmp_path)


def test_known_but_undecodable_dtype_lists_then_refuses(tmp_path):
    path = v2_file(tmp_path / "s", one_output(data_type=pb.DT_STRING, size=4), b"abcd")
    tensor = opdiff.read_dump(path).outputs[0]
    assert tensor.data_type_name == "DT_STRING" and tensor.dtype is None
    with pytest.raises(opdiff.DumpFormatError, match="DT_STRING cannot be decoded"):
        tensor.to_numpy()


def test_layout_that_does_not_fit_its_shape(tmp_path):
    path = v2_file(tmp_path / "l", one_output(format=pb.FORMAT_NC1HWC0, dims=(1, 1, 2, 2), size=16), b"\x00" * 16)
    with pytest.raises(opdiff.DumpFormatError, match="5-D"):
        opdiff.read_dump(path).outputs[0].to_numpy()


def test_fractal_z_needs_the_logical_shape(tmp_path):
    path = v2_file(tmp_path / "fz", one_output(data_type=pb.DT_FLOAT16, format=pb.FORMAT_FRACTAL_Z, dims=(1, 1, 16, 16), size=512), b"\x00" * 512)
    with pytest.raises(opdiff.DumpFormatError, match="logical"):
        opdiff.read_dump(path).outputs[0].to_numpy()


def test_target_larger_than_stored(tmp_path):
    path = opdiff.write_dump(tmp_path / "b", "b", outputs=[Tensor(np.ones((1, 20, 2, 2), np.float16), layout="NC1HWC0")])
    with pytest.raises(opdiff.DumpFormatError, match="exceeds"):
        opdiff.read_dump(path).outputs[0].to_numpy(shape=(1, 40, 2, 2))


def test_nano_size_mismatch_and_truncation(tmp_path):
    path = opdiff.write_dump(tmp_path / "n", "n", outputs=[np.ones(4, np.float32)], form=DumpForm.NANO)
    good = path.read_bytes()
    (tmp_path / "longer").write_bytes(good + b"\x00")
    assert_bad(tmp_path / "longer", "nano dump")
    (tmp_path / "shorter").write_bytes(good[:-1])
    assert_bad(tmp_path / "shorter", "nano dump")
    (tmp_path / "head").write_bytes(good[:30])
    assert_bad(tmp_path / "head", "nano dump")


def test_nano_unknown_data_type(tmp_path):
    path = opdiff.write_dump(tmp_path / "n", "n", outputs=[np.ones(4, np.float32)], form=DumpForm.NANO)
    raw = bytearray(path.read_bytes())
    # The output record's data type sits right after the output list's TLV and count.
    position = raw.index(struct.pack("<I", 5), 16) + 12
    raw[position : position + 4] = struct.pack("<i", 99)
    (tmp_path / "u").write_bytes(bytes(raw))
    assert_bad(tmp_path / "u", "unknown data type number 99")


def test_v1_file_with_missing_data(tmp_path):
    header = one_output()
    (tmp_path / "v1").write_bytes(header.SerializeToString())
    assert_bad(tmp_path / "v1", "not a dump file")


def test_requests_larger_than_the_stored_tensor(tmp_path):
    path = opdiff.write_dump(tmp_path / "w", "w", outputs=[Tensor(np.ones((4, 3, 2, 2), np.float16), layout="FRACTAL_Z", groups=2)])
    tensor = opdiff.read_dump(path).outputs[0]
    with pytest.raises(opdiff.DumpFormatError, match="larger than the stored"):
        tensor.to_numpy(shape=(2**40, 3, 2, 2))
    with pytest.raises(opdiff.DumpFormatError, match="too many dimensions"):
        tensor.to_numpy(format="ND", shape=(1,) * 70)
    with pytest.raises(opdiff.DumpFormatError, match="does not hold"):
        tensor.to_numpy(shape=(4, 20, 2, 2))

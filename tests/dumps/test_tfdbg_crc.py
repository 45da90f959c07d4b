"""CRC-32C both ways: the Python table and (where installed) google-crc32c agree, and TFRecord
framing round-trips with a damaged record marked, not fatal."""

from __future__ import annotations

import io

import numpy as np

from opdiff.dumps.tfdbg.crc32c import crc32c, crc32c_python, masked_crc32c
from opdiff.dumps.tfdbg.crc32c_lanes import LANE_BYTES, crc32c_lanes
from opdiff.dumps.tfdbg.tfrecord import frame_record, read_records


def test_the_two_implementations_agree() -> None:
    data = np.random.default_rng(0).integers(0, 256, 5000, dtype=np.uint8).tobytes()
    for size in (0, 1, 7, 64, 4999):
        assert crc32c(data[:size]) == crc32c_python(data[:size])
    assert crc32c_python(b"123456789") == 0xE3069283  # the check value of CRC-32C
    assert masked_crc32c(b"") == 0xA282EAD8


def test_the_numpy_lanes_agree_at_every_edge() -> None:
    data = np.random.default_rng(1).integers(0, 256, 200 * LANE_BYTES + 3, dtype=np.uint8).tobytes()
    for size in (0, 3, 64 * LANE_BYTES - 1, 64 * LANE_BYTES, 64 * LANE_BYTES + 1, 129 * LANE_BYTES + 2, len(data)):
        assert crc32c_lanes(data[:size]) == crc32c_python(data[:size]), size


def test_a_bad_data_crc_marks_its_record_and_the_stream_goes_on() -> None:
    stream = bytearray(frame_record(b"first") + frame_record(b"second"))
    stream[12] ^= 0xFF  # the first record's first data byte
    records = list(read_records(io.BytesIO(bytes(stream))))
    assert [record.data[1:] for record in records] == [b"irst", b"econd"]
    assert records[0].damage is not None and "CRC does not match" in records[0].damage and records[1].damage is None

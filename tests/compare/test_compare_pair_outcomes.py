"""Every way a tensor pair can fail to compare in the batched engine (_core.PairBatch) gives a
row with the reference's reason; the op's other tensors are still compared. NPU against NPU by op
name, on dumps written here."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

import opdiff
from opdiff.dumps import dump_data_pb2 as pb

TS = 1700000000000001
NAME = "Add.add_1.3.1.{ts}"


def two_sides(tmp_path: Path):
    mine, golden = tmp_path / "mine", tmp_path / "golden"
    mine.mkdir()
    golden.mkdir()
    return mine, golden


def write(folder: Path, inputs, outputs) -> Path:
    return opdiff.write_dump(folder / NAME.format(ts=TS), "add_1", inputs=inputs, outputs=outputs)


def rows_by_tensor(report):
    return {row.tensor_index: row for row in report.rows}


def test_different_element_counts_give_the_reference_reason(tmp_path):
    mine, golden = two_sides(tmp_path)
    x = np.arange(6, dtype=np.float32)
    write(mine, [x], [x[:4]])
    write(golden, [x], [x[:5]])
    rows = rows_by_tensor(opdiff.compare(mine, golden))
    assert rows["add_1:input:0"].compared and rows["add_1:input:0"].metrics.max_absolute_error == 0.0
    bad = rows["add_1:output:0"]
    assert not bad.compared
    assert bad.reasons == ("[add_1] Due to the different shapes on the left and right, the left dump data([4]) can not "
                           "be compared to the right dump data([5]).",)


def test_unreadable_partner_file_names_the_file(tmp_path):
    mine, golden = two_sides(tmp_path)
    x = np.arange(6, dtype=np.float32)
    write(mine, [x], [x])
    broken = golden / NAME.format(ts=TS)
    broken.write_bytes(struct.pack("<Q", 1000) + b"short")
    rows = list(opdiff.compare(mine, golden).rows)
    assert rows and all(not row.compared for row in rows)
    assert all(row.reasons[0].startswith(f"[add_1] {broken}: ") for row in rows), rows[0].reasons


def raw_dump(path: Path, data_type: int, values: bytes, count: int) -> Path:
    """A v2 dump of one input and one output of `count` elements of an Ascend data type."""
    header = pb.DumpData(version="2.0", op_name="add_1")
    for tensor in (header.input.add(), header.output.add()):
        tensor.data_type, tensor.format, tensor.size = data_type, pb.FORMAT_ND, len(values)
        tensor.shape.dim.append(count)
    message = header.SerializeToString()
    path.write_bytes(struct.pack("<Q", len(message)) + message + values + values)
    return path


def test_undecodable_data_types_are_reported_per_side(tmp_path):
    mine, golden = two_sides(tmp_path)
    values = np.arange(4, dtype=np.int8).tobytes()
    raw_dump(mine / NAME.format(ts=TS), pb.DT_QINT8, values, 4)
    raw_dump(golden / NAME.format(ts=TS), pb.DT_INT8, values, 4)
    rows = opdiff.compare(mine, golden).rows
    assert [row.reasons for row in rows] == [("[add_1] The data type DT_QINT8 is not supported.",)] * 2
    raw_dump(mine / NAME.format(ts=TS), pb.DT_INT8, values, 4)
    raw_dump(golden / NAME.format(ts=TS), pb.DT_QINT8, values, 4)
    rows = opdiff.compare(mine, golden).rows
    assert [row.reasons for row in rows] == [("[add_1] The data type DT_QINT8 is not supported.",)] * 2


def test_compared_rows_carry_the_partner_facts(tmp_path):
    mine, golden = two_sides(tmp_path)
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4)
    write(mine, [x.astype(np.float16)], [x.reshape(6, 4)])
    write(golden, [x], [x])
    rows = rows_by_tensor(opdiff.compare(mine, golden))
    compared_in, compared_out = rows["add_1:input:0"], rows["add_1:output:0"]
    assert compared_in.my_dtype == "float16" and compared_in.golden_dtype == "float32"
    assert compared_in.shape == (2, 3, 4) and compared_in.reasons == ()
    assert compared_out.metrics.max_absolute_error == 0.0
    assert compared_out.reasons == ("The shapes differ ([6, 4] vs [2, 3, 4]): compared element by element in flat order.",)


def test_a_tensor_that_cannot_be_laid_out_is_reported_and_the_op_goes_on(tmp_path):
    mine, golden = two_sides(tmp_path)
    values = np.arange(24, dtype=np.float16)
    header = pb.DumpData(version="2.0", op_name="add_1")
    good, bad = header.input.add(), header.output.add()
    for tensor, layout in ((good, pb.FORMAT_ND), (bad, pb.FORMAT_NC1HWC0)):  # NC1HWC0 needs 5 dims
        tensor.data_type, tensor.format, tensor.size = pb.DT_FLOAT16, layout, values.nbytes
        tensor.shape.dim.extend([2, 3, 4])
    message = header.SerializeToString()
    (mine / NAME.format(ts=TS)).write_bytes(struct.pack("<Q", len(message)) + message + values.tobytes() * 2)
    write(golden, [values.reshape(2, 3, 4)], [values.reshape(2, 3, 4)])
    rows = rows_by_tensor(opdiff.compare(mine, golden))
    assert rows["add_1:input:0"].compared
    failed = rows["add_1:output:0"]
    assert not failed.compared and len(failed.reasons) == 1 and str(mine) in failed.reasons[0], failed.reasons


def test_the_core_statuses_are_a_typed_enum():
    import opdiff._core as _core

    assert list(_core.PairStatus.__members__) == ["compared", "golden_unreadable", "my_type_unsupported",
                                                  "golden_type_unsupported", "counts_differ", "order_differs", "failed"]

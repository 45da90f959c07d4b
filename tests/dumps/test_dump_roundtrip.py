"""write_dump then read_dump gives back the logical arrays exactly, for every dtype x layout."""

from __future__ import annotations

import numpy as np
import pytest

import opdiff
from opdiff.dumps import DumpForm, Tensor
from opdiff.dumps.layouts import CANONICAL, encode
from tests.support.dump_support import DTYPES, expected_logical, logical_data, same

# Logical shapes chosen so channels are not multiples of any C0 (16, 32, 64) and N not of 16.
SHAPES = {
    "ND": (5, 7),
    "NCHW": (3, 21, 2, 3),
    "NHWC": (3, 21, 2, 3),
    "HWCN": (3, 21, 2, 3),
    "CHWN": (3, 21, 2, 3),
    "NC1HWC0": (3, 21, 2, 3),
    "NC1HWC0_C04": (2, 6, 2, 3),
    "C1HWNCoC0": (3, 21, 2, 3),
    "FRACTAL_Z": (18, 21, 2, 3),
    "NCDHW": (2, 19, 2, 3, 2),
    "NDHWC": (2, 19, 2, 3, 2),
    "DHWCN": (2, 19, 2, 3, 2),
    "NDC1HWC0": (2, 19, 2, 3, 2),
    "FRACTAL_Z_3D": (17, 19, 2, 1, 2),
    "FRACTAL_NZ": (2, 20, 37),
}


def _c0(layout: str):
    return 4 if layout == "NC1HWC0_C04" else None


@pytest.mark.parametrize("layout", sorted(SHAPES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_and_layout_round_trips(tmp_path, dtype, layout):
    data = logical_data(dtype, SHAPES[layout], seed=hash((dtype, layout)) % 1000)
    path = opdiff.write_dump(tmp_path / "Op.op.1.1.1700000000000000", "op",
                             outputs=[Tensor(data, layout=layout, dtype=dtype, c0=_c0(layout))])
    tensor = opdiff.read_dump(path).outputs[0]
    assert tensor.format_name == layout
    assert tensor.dtype == dtype
    assert tensor.original_shape == SHAPES[layout]
    # Plain formats read as stored by default; the canonical order is one request away.
    assert same(tensor.to_numpy(format=CANONICAL[layout]), expected_logical(dtype, data))
    if layout not in ("NHWC", "HWCN", "CHWN", "NDHWC", "DHWCN"):
        assert same(tensor.to_numpy(), expected_logical(dtype, data))


@pytest.mark.parametrize("dtype", ["float16", "int8", "float32", "int4"])
@pytest.mark.parametrize(("groups", "shape"), [(2, (4, 3, 2, 2)), (3, (18, 5, 1, 3)), (4, (64, 7, 2, 2)), (8, (8, 1, 3, 3))])
def test_grouped_fractal_z_round_trips(tmp_path, dtype, groups, shape):
    data = logical_data(dtype, shape, seed=groups)
    path = opdiff.write_dump(tmp_path / "w", "w", inputs=[Tensor(data, layout="FRACTAL_Z", dtype=dtype, groups=groups)])
    tensor = opdiff.read_dump(path).inputs[0]
    assert tensor.sub_format == groups
    assert same(tensor.to_numpy(), expected_logical(dtype, data))


@pytest.mark.parametrize("form", list(DumpForm))
@pytest.mark.parametrize("layout", ["ND", "NC1HWC0", "FRACTAL_NZ", "FRACTAL_Z"])
def test_every_file_form_round_trips(tmp_path, form, layout):
    x = logical_data("float16", SHAPES[layout], seed=1)
    y = logical_data("int8", SHAPES[layout], seed=2)
    path = opdiff.write_dump(tmp_path / "Op.op.1.1.1700000000000001", "op", form=form,
                             inputs=[Tensor(x, layout=layout)], outputs=[Tensor(y, layout=layout, address=0xDEAD)])
    dump = opdiff.read_dump(path)
    assert dump.form == {"v2": "dump-v2", "v1": "dump-v1", "nano": "nano"}[form.value]
    assert same(dump.inputs[0].to_numpy(), x)
    assert same(dump.outputs[0].to_numpy(), y)
    assert dump.outputs[0].address == 0xDEAD
    assert dump.timestamp == 1700000000000001


@pytest.mark.parametrize("layout", ["NC1HWC0", "FRACTAL_Z", "FRACTAL_NZ", "NHWC", "C1HWNCoC0"])
def test_stored_array_is_the_encoded_layout(tmp_path, layout):
    x = logical_data("float16", SHAPES[layout], seed=3)
    path = opdiff.write_dump(tmp_path / "s", "s", outputs=[Tensor(x, layout=layout)])
    tensor = opdiff.read_dump(path).outputs[0]
    stored = tensor.to_numpy(logical=False)
    assert same(stored, encode(x, layout, c0=16))
    assert tensor.shape == stored.shape
    assert tensor.stored_bytes().tobytes() == stored.tobytes()


def test_header_fields_buffers_workspaces_and_attrs(tmp_path):
    path = opdiff.write_dump(
        tmp_path / "Add.add.7.3.1700000000000002", "scope/add", outputs=[np.arange(6, dtype=np.int32)],
        buffers=[b"\x01\x02\x03"], workspaces=[b"abcd"], dump_time=42, attrs=[("slice", '{"threadMode": 1}')],
    )
    dump = opdiff.read_dump(path)
    assert (dump.op_name, dump.version, dump.dump_time) == ("scope/add", "2.0", 42)
    assert dump.attrs == (("slice", '{"threadMode": 1}'),)
    assert dump.buffers[0].to_numpy().tobytes() == b"\x01\x02\x03"
    assert dump.workspaces[0].to_numpy().tobytes() == b"abcd"
    assert [t.role.value for t in dump.tensors] == ["output", "buffer", "workspace"]


def test_logical_format_other_than_canonical(tmp_path):
    x = logical_data("float32", (2, 21, 3, 4), seed=4)
    path = opdiff.write_dump(tmp_path / "n", "n", outputs=[Tensor(x, layout="NC1HWC0")])
    tensor = opdiff.read_dump(path).outputs[0]
    nhwc = tensor.to_numpy(format="NHWC", shape=(2, 3, 4, 21))
    assert same(nhwc, np.ascontiguousarray(x.transpose(0, 2, 3, 1)))
    hwcn = tensor.to_numpy(format="HWCN", shape=(3, 4, 21, 2))
    assert same(hwcn, np.ascontiguousarray(x.transpose(2, 3, 1, 0)))
    # A smaller logical shape crops (the reference's leading-corner slice).
    assert same(tensor.to_numpy(shape=(1, 5, 3, 4)), np.ascontiguousarray(x[:1, :5]))


def test_writer_takes_arrays_in_another_logical_format(tmp_path):
    x = logical_data("float16", (2, 3, 4, 21), seed=5)  # NHWC
    path = opdiff.write_dump(tmp_path / "t", "t", outputs=[Tensor(x, layout="NC1HWC0", logical_format="NHWC", original_shape=(2, 21, 3, 4))])
    assert same(opdiff.read_dump(path).outputs[0].to_numpy(), np.ascontiguousarray(x.transpose(0, 3, 1, 2)))


def test_scalar_and_empty_tensors(tmp_path):
    path = opdiff.write_dump(tmp_path / "e", "e", outputs=[np.float32(3.5), np.zeros((0, 4), np.float16)])
    dump = opdiff.read_dump(path)
    assert same(dump.outputs[0].to_numpy(), np.array(3.5, np.float32))
    assert dump.outputs[1].to_numpy().shape == (0, 4)


def test_metrics_of_two_layouts_match_numpy(tmp_path):
    x = logical_data("float32", (2, 37, 5, 5), seed=6)
    noisy = x + np.random.default_rng(7).normal(scale=1e-2, size=x.shape).astype(np.float32)
    a = opdiff.write_dump(tmp_path / "a", "a", outputs=[Tensor(noisy, layout="NC1HWC0")])
    b = opdiff.write_dump(tmp_path / "b", "b", outputs=[Tensor(x, layout="NHWC")])
    from opdiff.dumps import tensor_metrics

    got = tensor_metrics(opdiff.read_dump(a).outputs[0], opdiff.read_dump(b).outputs[0].view("NCHW", x.shape))
    want = opdiff.metrics(noisy, x)
    assert got.count == want.count
    assert got.cosine_similarity == pytest.approx(want.cosine_similarity, abs=1e-12)
    assert got.max_absolute_error == want.max_absolute_error
    assert got.max_absolute_error_index == want.max_absolute_error_index


def test_read_dump_builds_the_same_objects_as_the_constructors(tmp_path):
    """read_dump fills DumpFile/DumpTensor from field dicts (opdiff.numerics.frozen): the objects must equal
    those the dataclass constructors make, and the lazy path/timestamp must be the file name's."""
    import dataclasses

    from opdiff.dumps import DumpFile, DumpTensor

    path = opdiff.write_dump(tmp_path / "Add.add_1.3.4.1700000000000001", "add_1", inputs=[np.ones((2, 3), np.float32)],
                             outputs=[np.ones(3, np.float16)])
    dump = opdiff.read_dump(path)
    tensors = [DumpTensor(**{f.name: getattr(t, f.name) for f in dataclasses.fields(DumpTensor)}) for t in dump.tensors]
    assert tensors == list(dump.tensors) and [t.shape for t in tensors] == [(2, 3), (3,)]
    twin = DumpFile(**{f.name: getattr(dump, f.name) for f in dataclasses.fields(DumpFile)})
    assert twin == dump and twin.path == dump.path == path and dump.timestamp == 1700000000000001
    golden = tmp_path / "add_1.0.1700000000000002.npy"
    np.save(golden, np.ones(3, np.float32))
    assert opdiff.read_dump(golden).op_name == "add_1" and opdiff.read_dump(golden).timestamp == 1700000000000002

"""The C++ LayoutSource across chunk boundaries: tensors larger than one 64 Ki-element chunk, with
dims that make chunks end mid-row, read whole and compared through the metric engine."""

from __future__ import annotations

import numpy as np
import pytest

import opdiff
from opdiff import _core
from opdiff.dumps import Tensor, tensor_metrics
from tests.support.dump_support import logical_data, same

pytestmark = pytest.mark.kernels

CASES = [
    ("NC1HWC0", "float16", (3, 37, 29, 31), 1),
    ("FRACTAL_NZ", "bfloat16", (3, 300, 77), 1),
    ("FRACTAL_Z", "int8", (64, 7, 17, 19), 4),
    ("NDC1HWC0", "int4", (2, 70, 3, 19, 17), 1),
    ("C1HWNCoC0", "complex64", (5, 33, 21, 23), 1),
    ("FRACTAL_Z_3D", "float32", (33, 17, 3, 9, 11), 1),
]


def test_chunk_size_is_what_these_cases_exceed():
    assert _core.CHUNK_ELEMENTS == 65536
    assert all(np.prod(shape) > _core.CHUNK_ELEMENTS for *_, shape, _ in CASES)


@pytest.mark.parametrize(("layout", "dtype", "shape", "groups"), CASES)
def test_large_gathers_match_and_compare_equal(tmp_path, layout, dtype, shape, groups):
    data = logical_data(dtype, shape, seed=len(shape))
    path = opdiff.write_dump(tmp_path / "big", "big", outputs=[Tensor(data, layout=layout, dtype=dtype, groups=groups)])
    tensor = opdiff.read_dump(path).outputs[0]
    assert same(tensor.to_numpy(), data)
    view = tensor.view()
    assert not view.identity
    golden = opdiff.write_dump(tmp_path / "golden", "g", outputs=[Tensor(data, dtype=dtype)])
    one = tensor_metrics(view, opdiff.read_dump(golden).outputs[0], threads=1)
    many = tensor_metrics(view, opdiff.read_dump(golden).outputs[0], threads=2)
    assert one.max_absolute_error == 0.0 and one == many
    assert one.count == data.size * (2 if dtype.startswith("complex") else 1)


def test_views_keep_the_file_alive(tmp_path):
    path = opdiff.write_dump(tmp_path / "a", "a", outputs=[Tensor(np.arange(40, dtype=np.float32).reshape(1, 40, 1, 1), layout="NC1HWC0")])
    view = opdiff.read_dump(path).outputs[0].view()
    path.unlink()  # the mapping outlives the name and the DumpFile
    out = np.empty(view.shape, np.float32)
    view.read_into(out)
    assert out.reshape(-1).tolist() == list(range(40))


def test_read_into_checks_the_buffer_size(tmp_path):
    path = opdiff.write_dump(tmp_path / "a", "a", outputs=[np.ones(10, np.float32)])
    with pytest.raises(ValueError, match="needs 40"):
        opdiff.read_dump(path).outputs[0].view().read_into(np.empty(9, np.float32))


def test_compare_views_refuses_different_counts(tmp_path):
    a = opdiff.write_dump(tmp_path / "a", "a", outputs=[np.ones(10, np.float32)])
    b = opdiff.write_dump(tmp_path / "b", "b", outputs=[np.ones(11, np.float32)])
    with pytest.raises(ValueError, match="counts differ"):
        tensor_metrics(opdiff.read_dump(a).outputs[0], opdiff.read_dump(b).outputs[0])


# One chunk or less: the metric engine reads the runs once and gives the same ones to the KL pass
# (cpp/src/metrics.cpp); a gathered run must still be intact in its scratch by then.
SMALL_CASES = [
    ("NC1HWC0", "float16", (1, 40, 8, 8)),
    ("FRACTAL_NZ", "bfloat16", (3, 100, 70)),
    ("NC1HWC0", "float16", (1, 16, 64, 64)),  # exactly one chunk
]


@pytest.mark.parametrize(("layout", "dtype", "shape"), SMALL_CASES)
def test_a_one_chunk_gathered_tensor_compares_as_its_plain_array(tmp_path, layout, dtype, shape):
    assert np.prod(shape) <= _core.CHUNK_ELEMENTS
    data = logical_data(dtype, shape, seed=7)
    noise = np.random.default_rng(8).standard_normal(shape)
    golden = (data.astype(np.float64) + 0.05 * noise).astype(np.float32)  # not affine: KL well above 0
    blocked = opdiff.write_dump(tmp_path / "blocked", "b", outputs=[Tensor(data, layout=layout, dtype=dtype)])
    plain = opdiff.write_dump(tmp_path / "plain", "p", outputs=[Tensor(data, dtype=dtype)])
    reference = opdiff.write_dump(tmp_path / "golden", "g", outputs=[Tensor(golden, dtype="float32")])
    theirs = opdiff.read_dump(reference).outputs[0]
    via_layout = tensor_metrics(opdiff.read_dump(blocked).outputs[0].view(), theirs, threads=1)
    in_place = tensor_metrics(opdiff.read_dump(plain).outputs[0].view(), theirs, threads=1)
    assert not opdiff.read_dump(blocked).outputs[0].view().identity
    assert via_layout.kullback_leibler_divergence > 0
    assert via_layout == in_place  # same values in the same order: bit for bit, KL included

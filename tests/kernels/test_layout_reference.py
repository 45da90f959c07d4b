"""The C++ layouts against an independent, element-by-element numpy implementation of the
reference tool's index arithmetic (docs/reference/reference-tool.md §5.2 and the §4.4 leading-corner crop),
for every conversion the reference implements. Stored arrays are random everywhere, padding
included, so a layout that reads padding or misplaces an element fails."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import opdiff
from opdiff.dumps import dump_data_pb2 as pb
from opdiff.dumps.formats import format_number
from tests.support.dump_support import same, write_raw_v2

pytestmark = pytest.mark.kernels

DT = {"float16": pb.DT_FLOAT16, "int8": pb.DT_INT8, "float32": pb.DT_FLOAT}


def scatter(stored: np.ndarray, result_shape, index_of) -> np.ndarray:
    """O[index_of(s)] = S[s] for every stored index s whose target lies inside result_shape."""
    out = np.zeros(result_shape, dtype=stored.dtype)
    for s in itertools.product(*map(range, stored.shape)):
        o = index_of(*s)
        if all(0 <= i < d for i, d in zip(o, result_shape)):
            out[o] = stored[s]
    return out


def ref_nc1hwc0(stored, target_format, target_shape):
    n_, c1_, h_, w_, c0_ = stored.shape
    full = scatter(stored, (n_, c1_ * c0_, h_, w_), lambda n, c1, h, w, c0: (n, c1 * c0_ + c0, h, w))
    order = {"NCHW": (0, 1, 2, 3), "NHWC": (0, 2, 3, 1), "HWCN": (2, 3, 1, 0)}[target_format]
    out = np.transpose(full, order)
    return out[tuple(slice(0, d) for d in target_shape)]


def ref_fractal_z(stored, target_format, target_shape):
    letters = dict(zip(target_format, target_shape))
    h_, w_ = letters["H"], letters["W"]
    rows, no_, ni_, c0_ = stored.shape
    c1_ = rows // (h_ * w_)
    view = stored.reshape(c1_, h_, w_, no_, ni_, c0_)
    full = scatter(view, (no_ * ni_, c1_ * c0_, h_, w_), lambda c1, h, w, no, ni, c0: (no * ni_ + ni, c1 * c0_ + c0, h, w))
    full = full[: letters["N"], : letters["C"]]
    return np.transpose(full, ["NCHW".index(x) for x in target_format])


def ref_fractal_nz(stored, target_shape):
    t = tuple(target_shape)
    b = int(np.prod(t[:-2])) if len(t) > 2 else 1
    r, c = (t[-2], t[-1]) if len(t) >= 2 else (1, t[0])
    *_, c1_, no_, ni_, c0_ = stored.shape
    view = stored.reshape(b, c1_, no_, ni_, c0_)
    full = scatter(view, (b, no_ * ni_, c1_ * c0_), lambda bb, c1, no, ni, c0: (bb, no * ni_ + ni, c1 * c0_ + c0))
    return full[:, :r, :c].reshape(t)


def ref_ndc1hwc0(stored, target_shape):
    n_, d_, c1_, h_, w_, c0_ = stored.shape
    full = scatter(stored, (n_, c1_ * c0_, d_, h_, w_), lambda n, d, c1, h, w, c0: (n, c1 * c0_ + c0, d, h, w))
    return full[:, : target_shape[1]]


PERMUTATIONS = {  # (stored, target): axes, from §5.2
    ("HWCN", "NCHW"): (3, 2, 0, 1),
    ("HWCN", "NHWC"): (3, 0, 1, 2),
    ("NCHW", "NHWC"): (0, 2, 3, 1),
    ("NHWC", "NCHW"): (0, 3, 1, 2),
    ("NHWC", "HWCN"): (1, 2, 3, 0),
}


def read(tmp_path, stored, dtype, stored_format, target_format, target_shape, original=()):
    path = write_raw_v2(tmp_path / "t", stored, DT[dtype], format_number(stored_format), original)
    return opdiff.read_dump(path).outputs[0].to_numpy(format=target_format, shape=target_shape)


def random_stored(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "int8":
        return rng.integers(-128, 128, size=shape, dtype=np.int8)
    return rng.normal(size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["float16", "int8"])
@pytest.mark.parametrize("target_format", ["NCHW", "NHWC", "HWCN"])
@pytest.mark.parametrize(("stored_shape", "logical_nchw"),
                         [((2, 2, 3, 2, 16), (2, 24, 3, 2)), ((1, 1, 2, 2, 32), (1, 5, 2, 2)), ((3, 1, 1, 1, 16), (3, 16, 1, 1))])
def test_nc1hwc0_matches_reference(tmp_path, dtype, target_format, stored_shape, logical_nchw):
    stored = random_stored(stored_shape, dtype, 1)
    target = tuple(logical_nchw["NCHW".index(x)] for x in target_format)
    assert same(read(tmp_path, stored, dtype, "NC1HWC0", target_format, target), ref_nc1hwc0(stored, target_format, target))


@pytest.mark.parametrize("dtype", ["float16", "int8"])
@pytest.mark.parametrize("target_format", ["NCHW", "HWCN"])
@pytest.mark.parametrize(("rows_no", "logical_nchw"), [((2 * 3 * 2, 2), (20, 30, 3, 2)), ((1, 1), (3, 7, 1, 1))])
def test_fractal_z_matches_reference(tmp_path, dtype, target_format, rows_no, logical_nchw):
    c0 = 16 if dtype == "float16" else 32
    stored = random_stored((*rows_no, 16, c0), dtype, 2)
    target = tuple(logical_nchw["NCHW".index(x)] for x in target_format)
    assert same(read(tmp_path, stored, dtype, "FRACTAL_Z", target_format, target), ref_fractal_z(stored, target_format, target))


@pytest.mark.parametrize("target_format", ["ND", "NCHW", "NHWC"])  # the reference runs the same code for all three
@pytest.mark.parametrize(("stored_shape", "target"),
                         [((3, 2, 16, 16), (20, 40)), ((2, 3, 2, 2, 16, 16), (2, 3, 30, 20)), ((2, 1, 16, 16), (1, 17)), ((4, 1, 1, 16, 16), (4, 5, 9))])
def test_fractal_nz_matches_reference(tmp_path, target_format, stored_shape, target):
    stored = random_stored(stored_shape, "float16", 3)
    got = read(tmp_path, stored, "float16", "FRACTAL_NZ", target_format, target)
    assert same(got, ref_fractal_nz(stored, target))


@pytest.mark.parametrize("target_format", ["NCDHW", "ND"])
def test_ndc1hwc0_matches_reference(tmp_path, target_format):
    stored = random_stored((2, 3, 2, 2, 3, 16), "float16", 4)
    target = (2, 21, 3, 2, 3)
    assert same(read(tmp_path, stored, "float16", "NDC1HWC0", target_format, target), ref_ndc1hwc0(stored, target))


@pytest.mark.parametrize(("stored_format", "target_format"), sorted(PERMUTATIONS))
def test_plain_permutations_match_reference(tmp_path, stored_format, target_format):
    stored = random_stored((2, 3, 4, 5), "float32", 5)
    want = np.transpose(stored, PERMUTATIONS[(stored_format, target_format)])
    assert same(read(tmp_path, stored, "float32", stored_format, target_format, want.shape), np.ascontiguousarray(want))


def test_reference_converter_table_is_exposed():
    from opdiff import _core

    assert _core.reference_converts(format_number("NC1HWC0"), format_number("NHWC"))
    assert not _core.reference_converts(format_number("C1HWNCoC0"), format_number("NCHW"))  # an opdiff extension

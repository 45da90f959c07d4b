"""The tiled layout gather (cpp/src/layout_gather.cpp) at its edges: channel counts that are not a
multiple of C0, rows shorter and longer than a tile, ranges that start and end anywhere (the
metric engine's 64K chunks fall mid-row and mid-plane), element widths 1/2/4/8/16 and packed int4.

Stored arrays are random everywhere, padding included, and the expected logical arrays come from
numpy reshapes and transposes written here from the layout definitions (docs/reference/reference-tool.md
§5.2), not from the core."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Tuple

import numpy as np
import pytest

import opdiff
from opdiff import _core
from opdiff.dumps import Tensor, tensor_metrics
from opdiff.dumps import dump_data_pb2 as pb
from opdiff.dumps.formats import format_number
from tests.support.dump_support import same, write_raw_v2

pytestmark = pytest.mark.kernels

CHUNK = 65536

# dtype -> (Ascend number, numpy type): widths 1, 2, 4, 8 and 16 bytes.
DTYPES = {
    "int8": (pb.DT_INT8, np.int8),
    "float16": (pb.DT_FLOAT16, np.float16),
    "float32": (pb.DT_FLOAT, np.float32),
    "float64": (pb.DT_DOUBLE, np.float64),
    "complex128": (pb.DT_COMPLEX128, np.complex128),
}


def nc1hwc0_to_nchw(stored: np.ndarray, c: int) -> np.ndarray:
    n, c1, h, w, c0 = stored.shape
    return stored.transpose(0, 1, 4, 2, 3).reshape(n, c1 * c0, h, w)[:, :c]


def ndc1hwc0_to_ncdhw(stored: np.ndarray, c: int) -> np.ndarray:
    n, d, c1, h, w, c0 = stored.shape
    return stored.transpose(0, 2, 5, 1, 3, 4).reshape(n, c1 * c0, d, h, w)[:, :c]


def fractal_z_to_nchw(stored: np.ndarray, n: int, c: int, h: int, w: int) -> np.ndarray:
    rows, no, ni, c0 = stored.shape
    c1 = rows // (h * w)
    return stored.reshape(c1, h, w, no, ni, c0).transpose(3, 4, 0, 5, 1, 2).reshape(no * ni, c1 * c0, h, w)[:n, :c]


def fractal_nz_to_nd(stored: np.ndarray, rows: int, cols: int) -> np.ndarray:
    *batch, c1, no, ni, c0 = stored.shape
    flat = stored.reshape(-1, c1, no, ni, c0).transpose(0, 2, 3, 1, 4).reshape(-1, no * ni, c1 * c0)
    return flat[:, :rows, :cols].reshape(*batch, rows, cols)


TO_TARGET = {"NCHW": (0, 1, 2, 3), "NHWC": (0, 2, 3, 1), "HWCN": (2, 3, 1, 0), "CHWN": (1, 2, 3, 0)}


@dataclass(frozen=True)
class Case:
    name: str
    stored_format: str
    stored_shape: Tuple[int, ...]
    target_format: str
    target_shape: Tuple[int, ...]
    expected: Callable[[np.ndarray], np.ndarray]


def nc1hwc0(n, c, h, w, c0, target="NCHW"):
    c1 = -(-c // c0)
    nchw = (n, c, h, w)
    return Case(f"NC1HWC0 c={c} h={h} w={w} c0={c0} -> {target}", "NC1HWC0", (n, c1, h, w, c0), target,
                tuple(nchw[i] for i in TO_TARGET[target]),
                lambda s: np.ascontiguousarray(nc1hwc0_to_nchw(s, c).transpose(TO_TARGET[target])))


def plain(stored_format, stored_shape, target):
    nchw_of = {"NHWC": (0, 3, 1, 2), "HWCN": (3, 2, 0, 1), "CHWN": (3, 0, 1, 2)}[stored_format]
    to_nchw = lambda s: s.transpose(nchw_of)  # noqa: E731
    nchw = tuple(stored_shape[i] for i in nchw_of)
    return Case(f"{stored_format} {stored_shape} -> {target}", stored_format, stored_shape, target,
                tuple(nchw[i] for i in TO_TARGET[target]),
                lambda s: np.ascontiguousarray(to_nchw(s).transpose(TO_TARGET[target])))


CASES = [
    nc1hwc0(2, 37, 61, 67, 16),           # 3 C1 blocks, the last 5 of 16 used; rows longer than a tile
    nc1hwc0(3, 37, 5, 7, 16),             # H*W = 35: shorter than a tile, many planes per chunk
    nc1hwc0(1, 20, 130, 520, 16),         # one channel spans > 1 chunk: chunks inside a plane
    nc1hwc0(2, 3, 41, 43, 4),             # NC1HWC0_C04-like C0 = 4
    nc1hwc0(2, 37, 23, 29, 16, "NHWC"),
    nc1hwc0(2, 37, 23, 29, 16, "HWCN"),
    Case("NC1HWC0_C04", "NC1HWC0_C04", (3, 1, 77, 81, 4), "NCHW", (3, 3, 77, 81),
         lambda s: np.ascontiguousarray(nc1hwc0_to_nchw(s, 3))),
    Case("NDC1HWC0", "NDC1HWC0", (2, 3, 2, 19, 23, 16), "NCDHW", (2, 21, 3, 19, 23),
         lambda s: np.ascontiguousarray(ndc1hwc0_to_ncdhw(s, 21))),
    Case("FRACTAL_Z", "FRACTAL_Z", (3 * 5 * 7, 5, 16, 16), "NCHW", (70, 37, 5, 7),
         lambda s: np.ascontiguousarray(fractal_z_to_nchw(s, 70, 37, 5, 7))),
    Case("FRACTAL_Z -> HWCN", "FRACTAL_Z", (3 * 5 * 7, 5, 16, 16), "HWCN", (5, 7, 37, 70),
         lambda s: np.ascontiguousarray(fractal_z_to_nchw(s, 70, 37, 5, 7).transpose(2, 3, 1, 0))),
    Case("FRACTAL_NZ", "FRACTAL_NZ", (3, 20, 19, 16, 16), "ND", (3, 300, 317),
         lambda s: np.ascontiguousarray(fractal_nz_to_nd(s, 300, 317))),
    plain("HWCN", (13, 17, 19, 23), "NCHW"),
    plain("NHWC", (3, 41, 43, 37), "NCHW"),
    plain("CHWN", (37, 11, 13, 5), "NHWC"),
]


def random_stored(shape, dtype: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "int8":
        return rng.integers(-128, 128, size=shape, dtype=np.int8)
    if dtype == "complex128":
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(np.complex128)
    return rng.normal(size=shape).astype(DTYPES[dtype][1])


def open_view(path: Path, case: Case):
    return opdiff.read_dump(path).outputs[0].view(case.target_format, case.target_shape)


def check_ranges(view, expected: np.ndarray, ranges) -> None:
    flat = expected.reshape(-1)
    components = 2 if np.iscomplexobj(flat) else 1
    parts = flat.view(flat.real.dtype) if components == 2 else flat
    for start, count in ranges:
        got = np.frombuffer(view.read_range(start, count), dtype=parts.dtype)
        assert same(got, parts[start : start + count]), (start, count)


def edge_ranges(total: int, step: int) -> list:
    """Engine-like chunks plus ranges that start and end at awkward places (even: complex pairs)."""
    ranges = [(start, min(CHUNK, total - start)) for start in range(0, total, CHUNK)]
    rng = np.random.default_rng(total)
    for _ in range(12):
        start = int(rng.integers(0, total)) & ~1
        ranges.append((start, min(total - start, int(rng.integers(1, 3 * step)) * 2)))
    ranges += [(0, total), (total - 2, 2), (step & ~1, min(total - (step & ~1), 2 * step))]
    return [(s, c) for s, c in ranges if c > 0]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_gather_matches_numpy_layouts(tmp_path, case, dtype):
    stored = random_stored(case.stored_shape, dtype, seed=len(case.name))
    path = write_raw_v2(tmp_path / "t", stored, DTYPES[dtype][0], format_number(case.stored_format))
    expected = case.expected(stored)
    view = open_view(path, case)
    assert tuple(view.shape) == expected.shape
    assert same(opdiff.read_dump(path).outputs[0].to_numpy(format=case.target_format, shape=case.target_shape),
                expected)
    components = 2 if dtype == "complex128" else 1
    check_ranges(view, expected, edge_ranges(expected.size * components, case.target_shape[-1] * components))


def test_the_fast_paths_are_taken(tmp_path):
    """NC1HWC0 -> NCHW merges H and W into one run of stride C0 and tiles C against it; NHWC
    targets copy contiguous C0 runs; FRACTAL_NZ rows are runs of C0."""
    stored = random_stored((2, 3, 61, 67, 16), "float16", 0)
    path = write_raw_v2(tmp_path / "t", stored, pb.DT_FLOAT16, format_number("NC1HWC0"))
    tensor = opdiff.read_dump(path).outputs[0]
    nchw = tensor.view("NCHW", (2, 37, 61, 67))
    assert [(a["extent"], a["inner"], a["regular"]) for a in nchw.gather_axes] == [(2, 3 * 61 * 67 * 16, True), (37, 1, True), (61 * 67, 16, True)]
    assert nchw.gather_axes[1]["block"] == 16 and nchw.tile_axis == 1
    nhwc = tensor.view("NHWC", (2, 61, 67, 37))
    assert nhwc.gather_axes[-1]["block"] == 16 and nhwc.gather_axes[-1]["inner"] == 1 and nhwc.tile_axis == -1
    nz = write_raw_v2(tmp_path / "nz", random_stored((20, 19, 16, 16), "float16", 1), pb.DT_FLOAT16, format_number("FRACTAL_NZ"))
    axes = opdiff.read_dump(nz).outputs[0].view("ND", (300, 317)).gather_axes
    assert [(a["inner"], a["block"]) for a in axes] == [(16, 300), (1, 16)]


def pack_int4(values: np.ndarray) -> bytes:
    nibbles = (values.reshape(-1).astype(np.int16) & 0xF).astype(np.uint8)
    if nibbles.size % 2:
        nibbles = np.append(nibbles, np.uint8(0))
    return (nibbles[0::2] | (nibbles[1::2] << 4)).tobytes()


def write_int4(path: Path, stored: np.ndarray, format_name: str) -> Path:
    header = pb.DumpData(version="2.0", op_name="raw")
    packed = pack_int4(stored)
    out = header.output.add(data_type=pb.DT_INT4, format=format_number(format_name), size=len(packed))
    out.shape.dim.extend(stored.shape)
    message = header.SerializeToString()
    path.write_bytes(struct.pack("<Q", len(message)) + message + packed)
    return path


@pytest.mark.parametrize("case", [CASES[0], CASES[1], CASES[4], CASES[8], CASES[10], CASES[11]], ids=lambda c: c.name)
def test_int4_gathers_nibbles_in_logical_order(tmp_path, case):
    stored = np.random.default_rng(7).integers(-8, 8, size=case.stored_shape, dtype=np.int8)
    path = write_int4(tmp_path / "t", stored, case.stored_format)
    expected = case.expected(stored)
    assert same(opdiff.read_dump(path).outputs[0].to_numpy(format=case.target_format, shape=case.target_shape), expected)
    check_ranges(open_view(path, case), expected, edge_ranges(expected.size, case.target_shape[-1]))


@pytest.mark.parametrize("threads", [1, 2])
def test_metric_indices_are_logical_indices(tmp_path, threads):
    """A single wrong element is reported at its logical flat index through the engine's chunks."""
    logical = np.random.default_rng(3).normal(size=(2, 37, 61, 67)).astype(np.float32)
    wrong = logical.copy()
    spot = (1, 21, 40, 66)  # a late chunk, last W position, channel 5 of C1 block 1
    wrong[spot] += 100.0
    mine = opdiff.write_dump(tmp_path / "mine", "m", outputs=[Tensor(wrong.astype(np.float16), layout="NC1HWC0")])
    golden = opdiff.write_dump(tmp_path / "golden", "g", outputs=[Tensor(logical)])
    m = tensor_metrics(opdiff.read_dump(mine).outputs[0], opdiff.read_dump(golden).outputs[0], threads=threads)
    assert m.max_absolute_error_index == int(np.ravel_multi_index(spot, logical.shape))
    assert m.max_absolute_error > 99.0


def test_release_keeps_revisited_blocks_and_results(tmp_path):
    """One C1 block larger than many chunks: every channel pass revisits the whole block. Releasing
    resident pages between chunks (the engine does every 8) must not change a single value."""
    logical = np.random.default_rng(5).normal(size=(1, 16, 256, 512)).astype(np.float16)
    mine = opdiff.write_dump(tmp_path / "mine", "m", outputs=[Tensor(logical, layout="NC1HWC0")])
    golden = opdiff.write_dump(tmp_path / "golden", "g", outputs=[Tensor(logical.astype(np.float32))])
    view = opdiff.read_dump(mine).outputs[0].view()
    golden_view = opdiff.read_dump(golden).outputs[0].view()
    for threads in (1, 2):
        m = tensor_metrics(view, golden_view, threads=threads)
        assert m.max_absolute_error == 0.0 and m.count == logical.size
    assert same(opdiff.read_dump(mine).outputs[0].to_numpy(), logical)


def test_chunk_constant_is_the_one_tested():
    assert _core.CHUNK_ELEMENTS == CHUNK


SIBLING_CASES = [
    nc1hwc0(1, 20, 130, 520, 16),  # planes of 67,600 elements: two C0 groups, the second of 4
    Case("NDC1HWC0 long planes", "NDC1HWC0", (1, 2, 2, 61, 557, 16), "NCDHW", (1, 19, 2, 61, 557),
         lambda s: np.ascontiguousarray(ndc1hwc0_to_ncdhw(s, 19))),  # D between C and H*W: mid rows
    plain("NHWC", (1, 300, 230, 19), "NCHW"),  # plain C axis, 16 siblings
]


def sibling_ranges(plane: int, total: int, siblings: int, components: int):
    """(first, n, count): chunk-aligned groups, groups crossing a plane end, groups that run past
    the last channel (the source falls back to single ranges there), odd counts."""
    rng = np.random.default_rng(plane)
    out = [(0, siblings, CHUNK), (CHUNK, siblings, CHUNK), (plane - 1000 * components, 3, 3000 * components)]
    for _ in range(10):
        n = int(rng.integers(1, siblings + 1))
        count = int(rng.integers(1, 2 * CHUNK)) * components
        first = int(rng.integers(0, max(1, total - (n - 1) * plane - count))) // components * components
        out.append((first, n, count))
    return [(f, n, c) for f, n, c in out if f + (n - 1) * plane + c <= total]


@pytest.mark.parametrize("dtype", list(DTYPES) + ["int4"])
@pytest.mark.parametrize("case", SIBLING_CASES, ids=lambda c: c.name)
def test_sibling_ranges_read_in_one_pass_equal_single_ranges(tmp_path, case, dtype):
    if dtype == "int4":
        stored = np.random.default_rng(9).integers(-8, 8, size=case.stored_shape, dtype=np.int8)
        path = write_int4(tmp_path / "t", stored, case.stored_format)
    else:
        stored = random_stored(case.stored_shape, dtype, seed=3)
        path = write_raw_v2(tmp_path / "t", stored, DTYPES[dtype][0], format_number(case.stored_format))
    expected = case.expected(stored).reshape(-1)
    components = 2 if dtype == "complex128" else 1
    parts = expected.view(expected.real.dtype) if components == 2 else expected
    view = open_view(path, case)
    plane = view.sibling_stride
    assert plane >= CHUNK and plane % (case.target_shape[-1] * components) == 0
    assert view.sibling_count == min(16, case.target_shape[1 if case.target_format.startswith("NC") else 0])
    for first, n, count in sibling_ranges(plane, parts.size, view.sibling_count, components):
        got = view.read_siblings(first, plane, n, count)
        for k, data in enumerate(got):
            start = first + k * plane
            assert same(np.frombuffer(data, dtype=parts.dtype), parts[start : start + count]), (first, n, count, k)


def test_siblings_of_short_planes_and_other_strides_read_range_by_range(tmp_path):
    """No sibling stride when a plane is shorter than a chunk; any stride still reads exactly."""
    stored = random_stored((3, 3, 5, 7, 16), "float16", 4)
    path = write_raw_v2(tmp_path / "t", stored, pb.DT_FLOAT16, format_number("NC1HWC0"))
    case = nc1hwc0(3, 37, 5, 7, 16)
    view = open_view(path, case)
    assert view.sibling_stride == 0 and view.sibling_count == 1
    flat = case.expected(stored).reshape(-1)
    for first, stride, n, count in [(0, 35, 4, 100), (17, 1000, 3, 999), (5, 0, 2, 7)]:
        for k, data in enumerate(view.read_siblings(first, stride, n, count)):
            assert same(np.frombuffer(data, np.float16), flat[first + k * stride : first + k * stride + count])


def test_sibling_and_range_reads_refuse_ranges_past_the_end(tmp_path):
    path = write_raw_v2(tmp_path / "t", random_stored((1, 1, 2, 3, 16), "float16", 0), pb.DT_FLOAT16, format_number("NC1HWC0"))
    view = open_view(path, nc1hwc0(1, 16, 2, 3, 16))
    for bad in [(0, 1, 2, 96), (90, 1, 1, 7), (1, 2**62, 5, 1), (0, 2**40, 2**31, 1)]:
        with pytest.raises(ValueError, match="past the end"):
            view.read_siblings(*bad)
    with pytest.raises(ValueError, match="past the end"):
        view.read_range(95, 2)


def metric_values(m) -> dict:
    values = {key: value for key, value in m.as_dict().items() if isinstance(value, (int, float))}
    for side in ("x", "y"):
        for key, value in getattr(m, side).__dict__.items():
            values[f"{side}.{key}"] = value
    return values


@pytest.mark.parametrize("dtype", ["float16", "int8", "complex128"])
@pytest.mark.parametrize("case", SIBLING_CASES, ids=lambda c: c.name)
def test_metrics_read_in_sibling_groups_equal_metrics_of_the_decoded_arrays(tmp_path, case, dtype):
    """The metric engine reads a tiled tensor a C0 group at a time (cpp/src/chunk_schedule.hpp):
    its values, the positions of the largest errors included, are those of the decoded array
    compared as a plain one (within the kernels' float64 contract: chunks are cut elsewhere), for
    every thread count and for -max prefixes inside and across planes."""
    stored = random_stored(case.stored_shape, dtype, seed=11)
    path = write_raw_v2(tmp_path / "mine", stored, DTYPES[dtype][0], format_number(case.stored_format))
    mine = case.expected(stored)
    rng = np.random.default_rng(12)
    golden = (mine + rng.normal(scale=0.01, size=mine.shape)).astype(np.complex128 if dtype == "complex128" else np.float32)
    spot = tuple(int(rng.integers(0, extent)) for extent in golden.shape)
    golden[spot] += 50  # one clear worst element, somewhere in a later plane
    golden_path = opdiff.write_dump(tmp_path / "golden", "g", outputs=[Tensor(golden)])
    view = open_view(path, case)
    golden_view = opdiff.read_dump(golden_path).outputs[0].view()
    assert view.sibling_stride > 0
    flat_mine, flat_golden = mine.reshape(-1), golden.reshape(-1)
    if dtype == "complex128":
        flat_mine, flat_golden = flat_mine.view(np.float64), flat_golden.view(np.float64)
    components = 2 if dtype == "complex128" else 1
    plane = view.sibling_stride // components  # in elements, as -max counts them
    for limit in (0, plane * 3, plane + plane // 2 + 7):
        end = limit * components or flat_mine.size
        expected = metric_values(opdiff.metrics(flat_mine[:end], flat_golden[:end], threads=1))
        runs = [tensor_metrics(view, golden_view, threads=threads, max_elements=limit) for threads in (1, 2)]
        assert runs[0] == runs[1]  # partial sums merge in a fixed order whatever the threads
        got = metric_values(runs[0])
        assert got.keys() == expected.keys()
        for key, value in expected.items():
            assert got[key] == pytest.approx(value, rel=1e-6, abs=1e-9, nan_ok=True), (limit, key)
        assert got["max_absolute_error_index"] == expected["max_absolute_error_index"]

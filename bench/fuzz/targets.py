"""Fuzz targets: everything opdiff decodes from bytes a user did not write.

Each target has seeds made by the project's own writers and a `check(data)` that feeds one input
to a reader. A check returns normally when the reader either worked or refused the input with the
reader's own error type (DumpFormatError, GraphFormatError); anything else it raises, and any
crash, hang or memory blow-up of the process, is a finding. Some checks add an oracle beyond "no
crash" (a differential against numpy or protobuf, a round trip of the stored bytes).

Used by bench/fuzz/run.py (atheris) and by tests/reliability/test_fuzz_targets.py (seeds and regressions).
"""

from __future__ import annotations

import contextlib
import struct
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Sequence

import ml_dtypes
import numpy as np
from google.protobuf import text_format
from google.protobuf.message import DecodeError

import opdiff
import opdiff._core as _core
from opdiff.dumps import DumpFormatError, Tensor, save_npy, tensor_metrics
from opdiff.dumps import dump_data_pb2 as pb
from opdiff.dumps.formats import DATA_TYPE_OF, LAYOUTS, format_number
from opdiff.dumps.numpy_types import numpy_dtype
from opdiff.graph import GraphFormatError
from opdiff.graph.ge.text import parse_text
from opdiff.graph.ge.text_form import TextForm, text_form_of
from opdiff.graph.ge.writer import ge_onnx_text, ge_proto_text
from opdiff.graph.model_def_builder import model_def, op_def, output_desc, simple_model_def
from opdiff.graph.om.writer import (
    MODEL_DEF,
    MODEL_INOUT_INFO,
    TASK_INFO,
    WEIGHTS_DATA,
    OmVariant,
    atc_partitions,
    om_bytes,
    write_om2,
)
from opdiff.graph.proto import ge_ir_pb2 as ge
from opdiff.graph.proto import ge_onnx_pb2 as gx
from opdiff.graph.read import read_graph_file
from opdiff.producers.caffe.reader import CaffeFileError, read_net

_BENCH = Path(__file__).resolve().parent.parent
for _folder in (_BENCH, _BENCH.parent):  # bench/fuzz_dumps.py; the tests package's helpers, run from anywhere
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))
import fuzz_dumps  # noqa: E402  (bench/fuzz_dumps.py: dump seeds and the read-everything check)
import tfdbg_targets  # noqa: E402  (bench/fuzz/tfdbg_targets.py: the tfdbg readers' targets)
from scratch import Scratch  # noqa: E402  (bench/fuzz/scratch.py)

from tests.support.attr_compressor import compress  # noqa: E402
from tests.support.ge_training_model import training_model_def  # noqa: E402

NPY_MAGIC = b"\x93NUMPY"


@dataclass(frozen=True)
class Target:
    name: str
    description: str
    seeds: Callable[[Path], List[bytes]]
    check: Callable[[bytes], None]


# --- dump header -----------------------------------------------------------------------------

def header_seeds(folder: Path) -> List[bytes]:
    """The DumpData headers of the dump seeds (v2 files: after the u64 length; v1: the file)."""
    headers = []
    for path in fuzz_dumps.make_seeds(folder):
        data = path.read_bytes()
        if data.startswith(NPY_MAGIC):
            continue
        length = struct.unpack_from("<Q", data)[0]
        headers.append(data[8 : 8 + length] if 8 + length <= len(data) else data)
    return headers


def _header_signal(header: dict) -> None:
    """Branches on what the C++ decoder found: libFuzzer cannot see into it (no coverage for C++
    here), so these (and their hit counts) are its signal that an input reached new structure."""
    for key in ("inputs", "outputs", "buffers", "workspaces"):
        for tensor in header[key]:
            if tensor["shape"]:
                pass
            if tensor["original_shape"]:
                pass
            if tensor["data"]:
                pass
            if tensor["origin_name"]:
                pass
    if header["attrs"]:
        pass


def check_header(data: bytes) -> None:
    """The core's wire decoder; where it and protobuf both accept, they agree on the structure."""
    try:
        mine = _core.decode_dump_header(data)
    except DumpFormatError:
        return
    _header_signal(mine)
    try:
        theirs = pb.DumpData.FromString(data)
    except DecodeError:
        return  # protobuf also checks UTF-8 and wire types of known fields; the core is laxer
    expected = {"inputs": len(theirs.input), "outputs": len(theirs.output), "buffers": len(theirs.buffer),
                "workspaces": len(theirs.space)}
    found = {key: len(mine[key]) for key in expected}
    if found != expected:
        raise AssertionError(f"tensor counts: core {found}, protobuf {expected}")
    if mine["op_name"] != theirs.op_name.encode() or mine["dump_time"] != theirs.dump_time:
        raise AssertionError("op_name or dump_time differ between the core and protobuf")


# --- whole dump files --------------------------------------------------------------------------

def dump_seeds(folder: Path) -> List[bytes]:
    return [p.read_bytes() for p in fuzz_dumps.make_seeds(folder) if not p.name.endswith(".npy")]


def check_dump(data: bytes) -> None:
    fuzz_dumps.exercise(Scratch.write("Mutant.mutant.1.1.1700000000000099", data))


# --- .npy --------------------------------------------------------------------------------------

def npy_seeds(folder: Path) -> List[bytes]:
    rng = np.random.default_rng(1)
    arrays = {
        "f4": rng.normal(size=(2, 3, 4)).astype(np.float32),
        "scalar": np.float64(3.5),
        "empty": np.zeros((0, 3), np.int16),
        "c8": (rng.normal(size=5) + 1j).astype(np.complex64),
        "b1": rng.integers(0, 2, size=(7,)).astype(bool),
        "u8": np.arange(12, dtype=np.uint64).reshape(3, 4),
    }
    for name, array in arrays.items():
        np.save(folder / f"{name}.npy", array)
    np.save(folder / "fortran.npy", np.asfortranarray(rng.integers(0, 9, size=(3, 4, 5)).astype(np.int32)))
    save_npy(folder / "bf16.npy", rng.normal(size=(4, 4)).astype(ml_dtypes.bfloat16))
    save_npy(folder / "f8.npy", rng.normal(size=(6,)).astype(ml_dtypes.float8_e5m2), fortran_order=True)
    with open(folder / "v2.npy", "wb") as out:  # format 2.0: a 4-byte header length
        np.lib.format.write_array_header_2_0(out, {"descr": "<f2", "fortran_order": False, "shape": (3,)})
        out.write(np.ones(3, np.float16).tobytes())
    return [p.read_bytes() for p in sorted(folder.glob("*.npy"))]


def check_npy(data: bytes) -> None:
    """Read as .npy (the magic kept so mutations reach the header parser); where numpy also reads
    the file, both see the same shape and the same element bytes."""
    path = Scratch.write("mutant.npy", NPY_MAGIC + data[len(NPY_MAGIC) :])
    try:
        tensor = opdiff.read_dump(path).outputs[0]
        mine = tensor.to_numpy()
        tensor.to_numpy(logical=False)
    except DumpFormatError:
        return
    try:
        theirs = np.load(path, allow_pickle=False)
    except Exception:  # numpy's own refusals (ValueError, SyntaxError, ...) are not ours to judge
        return
    if theirs.dtype.kind not in "biufc" or theirs.dtype.byteorder == ">":
        return  # void/ml_dtypes arrays: numpy cannot name their type
    if mine.shape != theirs.shape or mine.tobytes() != np.ascontiguousarray(theirs).astype(mine.dtype).tobytes():
        raise AssertionError(f"opdiff reads {mine.dtype}{mine.shape}, numpy {theirs.dtype}{theirs.shape}, values differ")


# --- .om models --------------------------------------------------------------------------------

def _fused_model() -> ge.ModelDef:
    ops = [
        op_def("x", "Data", output_descs=[output_desc(dtype="DT_FLOAT", ge_origin_format="NCHW", origin_shape=[1, 3, 8, 8])]),
        op_def("conv_relu", "Conv2D", id_=1, inputs=["x:0", "x:-1"], original_names=["conv", "relu"],
               output_descs=[output_desc("relu", 0, origin_format="NCHW", origin_shape=[1, 16, 8, 8])]),
        op_def("l1_a", "Conv2D", id_=2, inputs=["conv_relu:0"], original_names=["c2"], l1_fusion_sub_graph_no="5",
               output_descs=[output_desc("c2", 0)]),
        op_def("split_1", "Mul", id_=3, inputs=["l1_a:0"], original_names=["gelu"], is_multiop=True,
               output_descs=[output_desc()]),
        op_def("out", "NetOutput", id_=4, inputs=["split_1:0"], original_names=[]),
    ]
    return model_def("fused", [("fused_graph", ops)])


def om_seeds(folder: Path) -> List[bytes]:
    simple = simple_model_def().SerializeToString()
    compressed = _fused_model()
    compress(compressed)
    # Each header variant of real ATC output (docs/reference/device-files.md §1) with the partitions of its era.
    seeds = [om_bytes([atc_partitions(simple, variant)], variant=variant) for variant in OmVariant]
    seeds += [
        om_bytes([[(MODEL_DEF, simple)]]),
        om_bytes([[(MODEL_DEF, compressed.SerializeToString()), (WEIGHTS_DATA, bytes(16))]], variant=OmVariant.V1_0),
        om_bytes([[(MODEL_INOUT_INFO, b"\0" * 12), (MODEL_DEF, compressed.SerializeToString()), (WEIGHTS_DATA, bytes(16))]]),
        om_bytes([[(MODEL_DEF, _fused_model().SerializeToString()), (TASK_INFO, b"t" * 8)], [(MODEL_DEF, simple)]]),
        om_bytes([[(MODEL_DEF, _fused_model().SerializeToString())], [(MODEL_DEF, simple)]], variant=OmVariant.V2_TINY),
    ]
    no_length = bytearray(seeds[0])
    no_length[76:80] = bytes(4)  # a "1.0" header whose length is 0: read by the partition table alone
    seeds.append(bytes(no_length))
    seeds.append(write_om2(folder / "package.om", {"graph": [{"name": "g", "op": []}]}).read_bytes())
    seeds.append(write_om2(folder / "package_with_model.om", {"graph": [{"name": "g", "op": []}]},
                           model_binary=seeds[0]).read_bytes())
    return seeds


def check_om(data: bytes) -> None:
    """What `opdiff graph` reads: the FusionMap, the build facts and, for an .om, header and partitions."""
    try:
        graph = read_graph_file(Scratch.write("mutant.om", data))
        for group in graph.fusion_map.groups:
            _ = group.original_names, group.relation
        _ = graph.facts.soc_version
        if graph.om is not None:
            _ = graph.om.header.version_name, [p.type.name for sub in graph.om.submodels for p in sub.partitions]
    except GraphFormatError:
        return


# --- GE graph dumps (protobuf text) ------------------------------------------------------------

def ge_text_seeds(folder: Path) -> List[bytes]:
    """Both text forms of a training graph with a sub-graph, the ONNX form without strings, and the
    text-format corners the pre-pass must follow: comments, a BOM, `<>` messages, escapes, `bt`."""
    model = training_model_def()
    small = _fused_model()
    corners = (b'\xef\xbb\xbf# comment "with quote" {\nversion: 2\ngraph: < name: \'g\\\'1\' op { name: "a\\"}" '
               b'type: "Add" attr { key: "k" value { bt: "\\000\\377" } } } >\nattr { key: "x" value { list { i: [1, 2] } } }\n')
    return [
        ge_proto_text(model).encode(),
        ge_onnx_text(model).encode(),
        ge_onnx_text(model, with_strings=False).encode(),
        ge_proto_text(small).encode(),
        ge_onnx_text(small).encode(),
        corners,
    ]


def check_ge_text(data: bytes) -> None:
    """read_graph_file on the text; where no string was cut, the pre-pass's segmented parse and
    protobuf's parse of the whole text agree: both refuse, or both give the same message."""
    path = Scratch.write("ge_proto_00000001_Build.txt", data)
    try:
        graph = read_graph_file(path)
        for group in graph.fusion_map.groups:
            _ = group.original_names, group.relation
    except GraphFormatError:
        pass
    schema = gx.ModelProto if text_form_of(data[: 64 * 1024]) is TextForm.GE_ONNX else ge.ModelDef
    mine = schema()
    try:
        cut = parse_text(str(path), mine).count
    except GraphFormatError:
        return  # the pre-pass refuses more than protobuf (depth over 64, a string across lines)
    if cut:
        return  # protobuf would see the cut strings (bytes that need not even be UTF-8): no oracle
    theirs = schema()
    text = data[3:] if data.startswith(b"\xef\xbb\xbf") else data  # protobuf's tokenizer takes no BOM
    try:
        text_format.Merge(text.decode("utf-8"), theirs, allow_unknown_field=True)
    except (text_format.ParseError, UnicodeDecodeError) as error:
        raise AssertionError(f"the segmented parse accepts what protobuf refuses: {error}") from None
    if mine.SerializeToString(deterministic=True) != theirs.SerializeToString(deterministic=True):
        raise AssertionError("the segmented parse and protobuf's whole parse give different messages")


# --- layouts -----------------------------------------------------------------------------------

# Stored formats: every layout opdiff decodes plus numbers it must treat as reshape-only.
_FORMATS = [format_number(name) for name in LAYOUTS] + [1000, -3]
_DTYPES = sorted(DATA_TYPE_OF)
_TARGETS = [None, "NCHW", "NHWC", "ND", "HWCN", "CHWN", "NCDHW", "NDHWC", "DHWCN", "NC1HWC0", "FRACTAL_NZ"]


class Bytes:
    """Takes small numbers from the front of the fuzz input (atheris' FuzzedDataProvider is not
    available without atheris, and regression inputs must replay without it)."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._at = 0

    def int(self, low: int, high: int) -> int:
        byte = self._data[self._at] if self._at < len(self._data) else 0
        self._at += 1
        return low + byte % (high - low + 1)

    def pick(self, items: Sequence):
        return items[self.int(0, len(items) - 1)]

    def dims(self, max_rank: int, max_dim: int) -> List[int]:
        return [self.int(0, max_dim) for _ in range(self.int(0, max_rank))]


def _element_bytes(dtype: str, count: int) -> int:
    if dtype == "int4":
        return (count + 1) // 2
    if dtype == "hifloat8":
        return count
    return count * numpy_dtype(dtype).itemsize


def layout_case(data: bytes) -> bytes:
    """A v2 dump holding one output with a fuzz-chosen stored format, dtype, stored and original
    shape, group count and payload size (exact, short or long)."""
    take = Bytes(data)
    dtype = take.pick(_DTYPES)
    stored = take.dims(7, 40)
    header = pb.DumpData(version="2.0", op_name="fuzz")
    output = header.output.add()
    output.data_type = DATA_TYPE_OF[dtype]
    output.format = take.pick(_FORMATS)
    output.shape.dim.extend(stored)
    output.original_shape.dim.extend(take.dims(7, 40))
    output.sub_format = take.int(-1, 20)
    count = int(np.prod(stored, dtype=np.uint64)) if stored else 1
    size = max(0, min(_element_bytes(dtype, count), 1 << 20) + take.int(-2, 2))
    output.size = size
    serialized = header.SerializeToString()
    payload = bytes(take.int(0, 255) for _ in range(min(size, 64))) * (size // 64 + 1)
    return struct.pack("<Q", len(serialized)) + serialized + payload[:size]


def check_layout(data: bytes) -> None:
    """Lay the tensor out in a fuzz-chosen target (format, shape, as stored) and read it; the
    as-stored read must give back the stored bytes unchanged."""
    take = Bytes(data[-8:])  # the tail picks the target, the rest the stored tensor
    path = Scratch.write("Fuzz.layout.1.1.1700000000000000", layout_case(data))
    try:
        tensor = opdiff.read_dump(path).outputs[0]
    except DumpFormatError:
        return
    target_format = take.pick(_TARGETS)
    target_shape = take.dims(6, 40) if take.int(0, 1) else None
    try:
        laid_out = tensor.to_numpy(format=target_format, shape=target_shape if target_format else None)
        view = tensor.view(target_format, target_shape if target_format else None)
    except DumpFormatError:
        pass
    else:
        _check_metrics_of_view(view, laid_out)
    with contextlib.suppress(DumpFormatError):
        tensor.to_numpy()
    try:
        stored = tensor.to_numpy(logical=False)
    except DumpFormatError:
        return
    if tensor.dtype not in ("int4", "hifloat8", "bool") and stored.tobytes() != tensor.stored_bytes()[: stored.nbytes].tobytes():
        raise AssertionError("the as-stored read differs from the stored bytes")


def _check_metrics_of_view(view, laid_out: np.ndarray) -> None:
    """The metric engine reading the view (chunks, or C0 groups in one pass) sees the elements that
    to_numpy decoded: same count, extremes and NaN/Inf counts as the array compared as a plain one."""
    flat = laid_out.reshape(-1)
    if flat.dtype.kind == "c":
        flat = flat.view(flat.real.dtype)
    got = tensor_metrics(view, view, threads=2)
    want = opdiff.metrics(flat, flat, threads=1)
    same = lambda a, b: a == b or (a != a and b != b)  # noqa: E731  NaN equals NaN here
    for name in ("min", "max", "nan", "pos_inf", "neg_inf"):
        if not same(getattr(got.x, name), getattr(want.x, name)):
            raise AssertionError(f"metrics of the view disagree with to_numpy on {name}: {getattr(got.x, name)} vs {getattr(want.x, name)}")
    if got.count != want.count:
        raise AssertionError(f"metrics of the view count {got.count} elements, to_numpy {want.count}")


def layout_seeds(folder: Path) -> List[bytes]:
    """Byte strings that pick a few meaningful cases (NC1HWC0 fp16, FRACTAL_Z, FRACTAL_NZ, ND)."""
    def case(dtype: str, stored: Sequence[int], original: Sequence[int], layout: str, groups: int, target: str) -> bytes:
        # In layout_case's order: dtype, stored dims, format, original dims, groups, size (exact), fill.
        body = bytes([_DTYPES.index(dtype), len(stored), *stored, _FORMATS.index(format_number(layout)), len(original),
                      *original, groups + 1, 2, 7])
        return body + bytes([_TARGETS.index(target), 0, 0, 0, 0, 0, 0, 0])
    return [
        case("float16", [1, 2, 3, 3, 16], [1, 20, 3, 3], "NC1HWC0", 1, "NCHW"),
        case("float32", [2, 1, 16, 16], [16, 2, 1, 1], "FRACTAL_Z", 1, "NCHW"),
        case("int8", [1, 1, 16, 32], [8, 3, 1, 1], "FRACTAL_Z", 2, "NCHW"),
        case("float16", [2, 2, 2, 16, 16], [2, 20, 30], "FRACTAL_NZ", 1, "ND"),
        case("bfloat16", [2, 3, 4], [6, 4], "ND", 1, "ND"),
        case("int4", [2, 1, 3, 3, 2, 16], [2, 10, 1, 3, 2], "NDC1HWC0", 1, "NCDHW"),
    ]


def statistics_seeds(folder: Path) -> List[bytes]:
    """Statistics CSVs from the project's writer: padded layouts, bf16 with NaN/Inf, int8, an
    unsupported dtype (empty cells), a scalar."""
    from opdiff.dumps.statistics_writer import write_statistics

    x = np.linspace(-3, 5, 2 * 5 * 3 * 3, dtype=np.float32).reshape(2, 5, 3, 3)
    special = np.array([1.0, np.nan, np.inf, -np.inf, -2.5], np.float32)
    files = [
        write_statistics(folder / "a.csv", inputs=[Tensor(x, layout="NC1HWC0", dtype="float16")],
                         outputs=[Tensor(x.reshape(10, 9), layout="FRACTAL_NZ", dtype="bfloat16")]),
        write_statistics(folder / "b.csv", inputs=[Tensor(special, dtype="bfloat16"), np.array([-7, 100], np.int8)],
                         outputs=[np.ones(3, np.complex64), np.float32(2.5)]),
    ]
    return [path.read_bytes() for path in files]


def check_statistics(data: bytes) -> None:
    """The statistics readers: the Python reader refuses only with StatisticsFormatError; the core's
    fast path (``_core.read_statistics_files``) either reads exactly what the Python reader reads,
    without a problem, or leaves the file to it."""
    from opdiff.dumps.statistics import StatisticsFormatError, read_statistics

    path = Scratch.write("stats.csv", data)
    (core,) = _core.read_statistics_files([str(path)], 1)
    try:
        python = read_statistics(path)
    except StatisticsFormatError:
        assert core is None, "the core read a file the Python reader refuses"
        return
    if core is None:
        return
    assert not python.problems and not python.notes, (python.problems, python.notes)
    mine = [(t.role, t.index, t.data_size, t.data_type, t.format, t.shape, t.count) for t in python.tensors]
    assert mine == [(c.role, c.index, c.data_size, c.data_type, c.format, c.shape, c.count) for c in core], (mine, core)
    values = [repr((t.max, t.min, t.mean, t.nan, t.neg_inf, t.pos_inf)) for t in python.tensors]
    assert values == [repr((c.max, c.min, c.mean, c.nan, c.neg_inf, c.pos_inf)) for c in core], (values, core)


CAFFE_PROTOTXT, CAFFE_MODEL = 0, 1  # the first byte of a caffe input: which reader it feeds (even / odd)


def caffe_seeds(folder: Path) -> List[bytes]:
    """The every-layer net and a ResNet (tests/support/caffe_models.py) as prototxt and caffemodel,
    and a V1-form prototxt with input_dim, each behind its reader's byte."""
    from tests.support.caffe_models import ResNetShape, every_layer_net, resnet_net

    seeds = []
    for writer in (every_layer_net(), resnet_net(ResNetShape(blocks=(1,), width=4, size=16, classes=3))):
        prototxt, caffemodel = writer.write(folder, writer.name)
        seeds += [bytes([CAFFE_PROTOTXT]) + prototxt.read_bytes(), bytes([CAFFE_MODEL]) + caffemodel.read_bytes()]
    v1 = b'name: "v1" input: "x" input_dim: 1 input_dim: 2 input_dim: 3 input_dim: 3 layers { name: "c" type: CONVOLUTION ' \
         b'bottom: "x" top: "c" convolution_param { num_output: 2 kernel_size: 1 } blobs { num: 2 channels: 2 height: 1 width: 1 ' \
         b'data: 1 data: 2 data: 3 data: 4 } blobs { data: 0 data: 1 } } layers { name: "r" type: RELU bottom: "c" top: "c" }'
    return seeds + [bytes([CAFFE_PROTOTXT]) + v1]


def check_caffe(data: bytes) -> None:
    """dump-caffe's readers (producers/caffe/reader.py): a prototxt read alone (its own blobs as the
    weights), or a caffemodel read with a fixed prototxt; each works or refuses with CaffeFileError
    naming the file. Every blob read holds the values its shape counts, in float32."""
    if not data:
        return
    body = data[1:]
    if data[0] % 2 == CAFFE_PROTOTXT:
        prototxt, caffemodel = Scratch.write("net.prototxt", body), None
    else:
        prototxt = Scratch.path("fixed.prototxt")
        if not prototxt.exists():
            prototxt.write_text('input: "x" input_shape { dim: 1 } layer { name: "r" type: "ReLU" bottom: "x" top: "x" }')
        caffemodel = Scratch.write("net.caffemodel", body)
    try:
        net = read_net(prototxt, caffemodel)
    except CaffeFileError as error:
        assert str(caffemodel or prototxt) in str(error), error
        return
    for blobs in net.weights.values():
        for blob in blobs:
            assert blob.dtype == np.float32 and blob.size == int(np.prod(blob.shape, dtype=np.int64)), blob.shape


TARGETS: Dict[str, Target] = {
    t.name: t
    for t in (
        Target("header", "the core's DumpData wire decoder (_core.decode_dump_header), checked against protobuf", header_seeds, check_header),
        Target("dump", "whole dump files (v2, v1, nano): read_dump, every tensor stored and laid out, stats", dump_seeds, check_dump),
        Target("npy", ".npy files through the core's reader, checked against np.load", npy_seeds, check_npy),
        Target("om", "read_graph_file (what opdiff graph reads) on .om files and OM2 packages", om_seeds, check_om),
        Target("ge_text", "GE graph dumps in protobuf text (ge_proto, ge_onnx): the pre-pass against protobuf", ge_text_seeds,
               check_ge_text),
        Target("layout", "TensorView over random stored formats, shapes, dtypes, groups and targets", layout_seeds, check_layout),
        Target("statistics", "statistics CSVs: the Python reader, and the core's fast path checked against it", statistics_seeds,
               check_statistics),
        Target("tfdbg_v1", "tfdbg v1 tensor files (Event protos): the root and every tensor, shape and dtype as declared",
               tfdbg_targets.v1_seeds, tfdbg_targets.check_v1),
        Target("tfdbg_v2", "tfdbg v2 .graph_execution_traces TFRecord streams: framing, CRCs, DebugEvent, every tensor",
               tfdbg_targets.v2_seeds, tfdbg_targets.check_v2),
        Target("caffe", "dump-caffe's prototxt (text) and caffemodel (binary) readers", caffe_seeds, check_caffe),
    )
}


def seed_files(target: Target, corpus: Path) -> List[Path]:
    """Writes the target's seeds into `corpus` (made by the writers in a scratch folder)."""
    corpus.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        seeds = target.seeds(Path(folder))
    paths = []
    for i, seed in enumerate(seeds):
        path = corpus / f"seed-{i:03d}"
        path.write_bytes(seed)
        paths.append(path)
    return paths


__all__ = ["TARGETS", "Target", "seed_files"]

"""tfdbg v1 and v2 roots read without TensorFlow: the dumps TensorFlow 2.21 wrote (tests/data/tfdbg)
equal, bit for bit, what TensorFlow's own readers gave; every dtype and TensorProto encoding; the
step rule; the layout details (``_arg_x_0_0``, nested node paths)."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from opdiff.dumps.tfdbg import tfdbg_pb2 as pb
from opdiff.dumps.tfdbg.detect import tfdbg_version
from opdiff.dumps.tfdbg.roots import read_tensor, read_tfdbg_root
from opdiff.dumps.tfdbg.tensors import TensorDamaged, TensorSkipped, to_numpy
from opdiff.dumps.tfdbg.writer import tensor_proto, write_v1_run, write_v2_root
from tests.support.paths import ROOT
from tests.support.tfdbg_expected import differences

DATA = ROOT / "tests" / "data" / "tfdbg"


@pytest.mark.parametrize("name", ["v1_sgd", "v2_sgd"])
def test_committed_dumps_equal_what_tensorflow_read(name: str) -> None:
    with np.load(DATA / f"{name}.expected.npz") as expected:
        assert differences(DATA / name, dict(expected)) == []


def test_v1_steps_leave_the_initialiser_out() -> None:
    root = read_tfdbg_root(DATA / "v1_sgd")
    assert [(run.fetches, run.step) for run in root.runs] == [(("init",), None), (("train",), 0), (("train",), 1)]
    assert root.step(None).number == 2 and root.step(0).number == 1
    ops = {ref.op_name for ref in root.step(0).tensors}
    # a fed placeholder x is dumped as node _arg_x_0_n; backward ops sit in sub-folders
    assert {"x", "labels", "gradients/conv_grad/Conv2DBackpropFilter", "bn"} <= ops
    with pytest.raises(ValueError, match="no step 5; steps found: \\[0, 1\\]"):
        root.step(5)


def test_v2_steps_are_the_traced_functions_executions() -> None:
    root = read_tfdbg_root(DATA / "v2_sgd")
    assert [(run.fetches[0].startswith("__inference_train_step"), run.step) for run in root.runs] == [(True, 0), (True, 1)]
    assert len(root.runs[0].tensors) == len(root.runs[1].tensors) > 100
    assert tfdbg_version(DATA / "v2_sgd") == 2 and tfdbg_version(DATA / "v1_sgd") == 1
    assert tfdbg_version(DATA / "v1_sgd" / sorted(p.name for p in (DATA / "v1_sgd").iterdir())[1]) == 1  # one run_* folder


def test_inference_runs_count_by_their_outputs(tmp_path: Path) -> None:
    value = {("logits", 0): np.ones(3, np.float32)}
    write_v1_run(tmp_path, 0, value, [], outputs=["logits:0"])
    write_v1_run(tmp_path, 1, value, ["init_tables"])
    write_v1_run(tmp_path, 2, value, [], outputs=["logits:0"])
    assert [run.step for run in read_tfdbg_root(tmp_path).runs] == [0, None, 1]


DTYPES = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.complex64, np.complex128, np.int8, np.uint8,
          np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES, ids=[np.dtype(d).name for d in DTYPES])
def test_every_dtype_from_tensor_content_and_typed_fields(dtype: type) -> None:
    rng = np.random.default_rng(3)
    value = (rng.standard_normal((2, 3)) * 50).astype(dtype)
    assert to_numpy(tensor_proto(value)).tobytes() == value.tobytes()
    typed = pb.TensorProto(dtype=tensor_proto(value).dtype)
    for size in value.shape:
        typed.tensor_shape.dim.add(size=size)
    flat = value.reshape(-1)
    name = np.dtype(dtype).name
    if name in ("float16", "bfloat16"):
        typed.half_val.extend(int(bits) for bits in flat.view(np.uint16))
    elif name.startswith("complex"):
        (typed.scomplex_val if name == "complex64" else typed.dcomplex_val).extend(flat.view(flat.real.dtype).tolist())
    else:
        field = {"float32": "float_val", "float64": "double_val", "int64": "int64_val", "uint32": "uint32_val",
                 "uint64": "uint64_val", "bool": "bool_val"}.get(name, "int_val")
        getattr(typed, field).extend(flat.tolist())
    decoded = to_numpy(typed)
    assert decoded.dtype == np.dtype(dtype) and decoded.tobytes() == value.tobytes()


def test_one_value_fills_the_shape_and_none_means_zeros() -> None:
    proto = pb.TensorProto(dtype=pb.DT_HALF, half_val=[int(np.float16(2.5).view(np.uint16))])
    proto.tensor_shape.dim.add(size=4)
    assert to_numpy(proto).tolist() == [2.5] * 4
    proto = pb.TensorProto(dtype=pb.DT_INT32)
    proto.tensor_shape.dim.add(size=2)
    assert to_numpy(proto).tolist() == [0, 0]
    assert to_numpy(pb.TensorProto(dtype=pb.DT_FLOAT, float_val=[7.0])).shape == ()


@pytest.mark.parametrize(("dtype", "words"), [(pb.DT_STRING, "a string tensor"), (pb.DT_RESOURCE, "a resource handle"),
                                              (pb.DT_VARIANT, "a variant tensor")])
def test_tensors_without_numbers_are_skipped_with_a_reason(dtype: int, words: str) -> None:
    with pytest.raises(TensorSkipped, match=words):
        to_numpy(pb.TensorProto(dtype=dtype))  # type: ignore[arg-type]


def test_sizes_that_disagree_are_damage() -> None:
    proto = tensor_proto(np.ones((2, 2), np.float32))
    proto.tensor_content = proto.tensor_content[:-1]
    with pytest.raises(TensorDamaged, match="holds 15 bytes; shape \\[2, 2\\] of DT_FLOAT needs 16"):
        to_numpy(proto)


def test_written_roots_read_back(tmp_path: Path) -> None:
    steps = [{("a/b", 0): np.arange(6, dtype=np.float32).reshape(2, 3) + k, ("c", 1): np.array([k], np.int64)} for k in range(3)]
    write_v2_root(tmp_path / "v2", steps)
    root = read_tfdbg_root(tmp_path / "v2")
    assert [run.step for run in root.runs] == [0, 1, 2]
    assert [float(read_tensor(ref).reshape(-1)[0]) for run in root.runs for ref in run.tensors if ref.op_name == "a/b"] == [0, 1, 2]

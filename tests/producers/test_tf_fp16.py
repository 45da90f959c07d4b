"""`opdiff dump-tf --dtype fp16`: the stand-in for a device's fp16 run of a frozen graph. Every op but
those kept reads fp16 and writes fp16 (an overflow past 65504 is inf), a kept op writes float32; the
run is written as device dumps whose fusion rule compare reads against dump-tf's golden run. Runs in
the venv tools/tf_env.py builds (.ci/run)."""

import numpy as np
import pytest

from tests.support.tf_required import tensorflow_or_skip

tf = tensorflow_or_skip()
pytestmark = pytest.mark.tf

from opdiff.cli import main  # noqa: E402
from opdiff.conventions.dump_names import escape_op_name  # noqa: E402
from opdiff.dumps.discovery import index_folder  # noqa: E402
from opdiff.dumps.reader import read_dump  # noqa: E402
from opdiff.graph import read_graph  # noqa: E402
from tests.support.tf_graphs import fp16_overflow_graph_def, fp16_overflow_input, write_pb  # noqa: E402


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tf_fp16")
    np.save(folder / "x.npy", fp16_overflow_input())
    return write_pb(fp16_overflow_graph_def(), folder / "overflow.pb"), ["--input", f"x={folder / 'x.npy'}"]


def fp16_run(model, tmp_path, *flags):
    path, inputs = model
    out = tmp_path / "fp16"
    assert main(["dump-tf", str(path), *inputs, "--dtype", "fp16", *flags, "-o", str(out)]) == 0
    return out


def dumped(out, op):
    """(inputs, outputs) of op's dump file under out/dump."""
    dump = read_dump(index_folder(out / "dump").newest(escape_op_name(op)).path)
    return [t.to_numpy() for t in dump.inputs], [t.to_numpy() for t in dump.outputs]


def weights():
    graph_def = fp16_overflow_graph_def()
    return {node.name: tf.make_ndarray(node.attr["value"].tensor) for node in graph_def.node if node.op == "Const"}


def test_each_op_reads_and_writes_fp16_and_a_matmul_past_65504_is_inf(model, tmp_path):
    out = fp16_run(model, tmp_path)
    (x, w), (product,) = dumped(out, "fc/matmul")
    assert x.dtype == np.float16 and w.dtype == np.float16 and product.dtype == np.float16
    np.testing.assert_array_equal(x, fp16_overflow_input().astype(np.float16))
    assert np.isposinf(product).all()  # every sum is past 65504: fp32 inside, rounded to fp16 on the way out
    (_, factor), (scaled,) = dumped(out, "scale")
    assert factor == np.float16(1e-4) and np.isposinf(scaled).all()
    assert sorted(p.name.split(".")[0] for p in (out / "dump").iterdir()) == ["AddV2", "Identity", "MatMul", "Mul"]


def test_kept_ops_write_float32_and_their_fp16_readers_read_it_rounded(model, tmp_path):
    out = fp16_run(model, tmp_path, "--keep-fp32", "MatMul")
    (x, w), (product,) = dumped(out, "fc/matmul")
    assert x.dtype == w.dtype == product.dtype == np.float32  # a kept op reads the input and the weight in fp32
    np.testing.assert_allclose(product, fp16_overflow_input() @ weights()["fc/w"], rtol=1e-6)
    (read, _), (scaled,) = dumped(out, "scale")
    assert read.dtype == np.float16 and np.isposinf(read).all()  # the Mul in fp16 reads the kept MatMul's output as fp16
    keep = tmp_path / "keep_dtype.cfg"
    keep.write_text("fc/matmul\nscale\n")
    out = fp16_run(model, tmp_path / "both", "--keep-fp32-file", str(keep))
    (product, factor), (scaled,) = dumped(out, "scale")
    assert scaled.dtype == np.float32 and factor == np.float32(1e-4)
    np.testing.assert_allclose(scaled, (fp16_overflow_input() @ weights()["fc/w"]) * np.float32(1e-4), rtol=1e-6)
    (biased_in, _), (biased,) = dumped(out, "bias")
    assert biased_in.dtype == np.float16 and np.isfinite(biased).all()


def test_the_fusion_rule_maps_the_dumps_to_the_golden_run(model, tmp_path):
    path, inputs = model
    assert main(["dump-tf", str(path), *inputs, "-o", str(tmp_path / "golden")]) == 0
    out = fp16_run(model, tmp_path)
    rule = read_graph(out / "fusion_rule.json")
    descs = {op.name: (op.type, [(d.origin_name, d.origin_output_index, d.dtype) for d in op.output_descs]) for op in rule.ops}
    assert descs["x"] == ("Data", [("x", 0, "DT_FLOAT")])
    assert descs["fc/matmul"] == ("MatMul", [("fc/matmul", 0, "DT_FLOAT16")])
    assert descs["out"] == ("Identity", [("out", 0, "DT_FLOAT")])
    result = tmp_path / "compared"
    assert main(["compare", "-m", str(out / "dump"), "-g", str(tmp_path / "golden" / "golden"), "-f", str(out / "fusion_rule.json"),
                 "-out", str(result)]) == 0
    (csv,) = result.glob("result_*.csv")
    rows = csv.read_text().splitlines()
    assert any(",fc/matmul:output:0," in row and ",inf," in row for row in rows)
    assert any(",scale:input:1," in row and "float16" in row for row in rows)  # the weight, rounded, against its golden file


def test_bad_precision_flags_are_exit_2(model, tmp_path, capsys):
    path, inputs = model
    keep = tmp_path / "keep.cfg"
    keep.write_text("no_such_op\n")
    assert main(["dump-tf", str(path), *inputs, "--dtype", "fp16", "--keep-fp32-file", str(keep), "-o", str(tmp_path / "a")]) == 2
    assert "no op named 'no_such_op'" in capsys.readouterr().err
    assert main(["dump-tf", str(path), *inputs, "--keep-fp32", "MatMul", "-o", str(tmp_path / "b")]) == 2
    assert "give --dtype fp16" in capsys.readouterr().err
    assert main(["dump-tf", str(path), "--train-op", "train", "--dtype", "fp16", "-o", str(tmp_path / "c")]) == 2
    assert "not with --train-op" in capsys.readouterr().err

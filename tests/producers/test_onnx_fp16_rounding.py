"""dump-onnx --dtype fp16 rounds every op's output to fp16, as a device's fp16 op does.

ONNX Runtime's CPU provider runs an fp16 op that has no fp16 kernel in float32 between Casts it
inserts, and drops those Casts between two such ops: a chain of them would never round. These
tests fail on a run that lets it: the overflow must reach the Div, the cancellation the Sub.
"""

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx

import opdiff  # noqa: E402
from opdiff.conventions.dump_names import escape_op_name  # noqa: E402
from opdiff.dumps.discovery import index_folder  # noqa: E402
from opdiff.producers import DumpOptions, Precision, dump_onnx  # noqa: E402
from opdiff.producers.onnx.fp16_model import convert_to_fp16  # noqa: E402
from opdiff.producers.onnx.runner import ort_inserted_casts  # noqa: E402
from tests.support.fp16_fragile_models import offset_then_center, overflow_then_divide  # noqa: E402
from tests.support.onnx_models import conv_bn_relu_model, mlp_model  # noqa: E402


def _output_of(result, op_name):
    index = index_folder(result.tensor_folder)
    return opdiff.read_dump(index.newest(escape_op_name(op_name)).path).outputs[0].to_numpy()


def test_an_overflowing_matmul_reaches_the_div_after_it_as_inf(tmp_path):
    model, feeds = overflow_then_divide()
    half = dump_onnx(model, tmp_path, feeds, DumpOptions(precision=Precision.FP16))
    matmul, div = _output_of(half, "mm"), _output_of(half, "div")
    overflowed = np.isinf(matmul)
    assert 0 < overflowed.sum() < matmul.size  # the scaled-down columns stay in range
    assert np.float32(feeds["x"].max()) * 16 * 198 > 65504
    assert np.array_equal(np.isinf(div), overflowed)  # the Div read fp16 infs, not fp32 values
    assert np.isinf(_output_of(half, "relu")).sum() == overflowed.sum()
    assert div.dtype == np.float16


def test_an_add_of_4096_loses_the_low_bits_the_centering_needs(tmp_path):
    model, feeds = offset_then_center()
    half = dump_onnx(model, tmp_path, feeds, DumpOptions(precision=Precision.FP16))
    centred = _output_of(half, "center").astype(np.float64)
    x = feeds["x"].astype(np.float64)
    exact = x - x.mean(axis=-1, keepdims=True)
    assert np.abs(centred - exact).max() > 0.5  # fp16's spacing at 4096 is 4: ties round 2 away
    shifted = _output_of(half, "offset")
    assert np.all(shifted.astype(np.float64) % 4 == 0)  # every shifted value is a multiple of 4


def test_fp16_nodes_compute_in_fp32_between_casts_that_survive_onnx_runtime(tmp_path):
    # The proof: the graph ONNX Runtime writes after its transformers holds no Cast of its own, and
    # every Cast of the run graph is still there; each compute node reads fp16-rounded values.
    for model in (overflow_then_divide()[0], offset_then_center()[0], conv_bn_relu_model(), mlp_model()[0]):
        converted = convert_to_fp16(model)
        inserted, missing = ort_inserted_casts(converted.run_model(), tmp_path / f"{model.graph.name}.onnx")
        assert inserted == [] and missing == [], model.graph.name


def test_kept_fp32_chain_stays_fp32_and_rounds_where_fp16_reads_it(tmp_path):
    model, feeds = overflow_then_divide()
    kept = dump_onnx(model, tmp_path, feeds, DumpOptions(precision=Precision.FP16, keep_fp32=("MatMul", "Div")))
    assert _output_of(kept, "mm").dtype == np.float32 and not np.isinf(_output_of(kept, "mm")).any()
    np.testing.assert_allclose(_output_of(kept, "div"), feeds["x"].astype(np.float64) @ _weights(model) / 1e4, rtol=1e-5)
    assert _output_of(kept, "relu").dtype == np.float16


def _weights(model):
    from onnx import numpy_helper

    return numpy_helper.to_array(next(init for init in model.graph.initializer if init.name == "w")).astype(np.float64)

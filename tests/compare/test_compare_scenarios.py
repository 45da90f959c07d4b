"""The fusion on vs off (-f + -cf) and quantized (-f + -q) scenarios, on data made by the writers."""

from pathlib import Path

import numpy as np
import pytest

import opdiff
from opdiff.dumps import Tensor
from opdiff.graph import OutputDesc, write_atc_json
from opdiff.graph.grouping import build_fusion_map
from opdiff.graph.provenance import make_op
from opdiff.results.scenario import Scenario

TS = 1700000000000000


def desc(name: str, shape=(1, 16, 4, 4)) -> OutputDesc:
    return OutputDesc(name, 0, "NCHW", shape, "DT_FLOAT16")


@pytest.fixture
def fusion_on_off(tmp_path: Path):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 16, 4, 4)).astype(np.float32)
    conv = rng.standard_normal((1, 16, 4, 4)).astype(np.float32)
    relu = np.maximum(conv, 0)
    on = build_fusion_map("on", [("g", [
        make_op("x", "Data", id_=0, output_descs=[desc("x")]),
        make_op("conv_relu", "Conv2D", id_=1, inputs=["x:0"], original_names=["conv", "relu"], output_descs=[desc("relu")]),
    ])])
    off = build_fusion_map("off", [("g", [
        make_op("x", "Data", id_=0, output_descs=[desc("x")]),
        make_op("conv", "Conv2D", id_=1, inputs=["x:0"], output_descs=[desc("conv")]),
        make_op("relu", "Relu", id_=2, inputs=["conv:0"], output_descs=[desc("relu")]),
    ])])
    paths = {"on_rule": write_atc_json(on, tmp_path / "on.json"), "off_rule": write_atc_json(off, tmp_path / "off.json"),
             "on": tmp_path / "on", "off": tmp_path / "off"}
    paths["on"].mkdir()
    paths["off"].mkdir()
    five_hd = {"layout": "NC1HWC0", "dtype": "float16"}
    opdiff.write_dump(paths["on"] / f"Conv2D.conv_relu.1.1.{TS + 1}", "conv_relu",
                      inputs=[Tensor(x, **five_hd)], outputs=[Tensor(relu * 1.0005, **five_hd)])
    opdiff.write_dump(paths["off"] / f"Conv2D.conv.1.1.{TS + 1}", "conv", inputs=[Tensor(x, **five_hd)],
                      outputs=[Tensor(conv, **five_hd)])
    opdiff.write_dump(paths["off"] / f"Relu.relu.2.1.{TS + 2}", "relu", inputs=[Tensor(conv, **five_hd)],
                      outputs=[Tensor(relu, **five_hd)])
    return paths


def test_fusion_on_vs_off(fusion_on_off):
    p = fusion_on_off
    report = opdiff.compare(p["on"], p["off"], fusion_rule=p["on_rule"], close_fusion_rule=p["off_rule"])
    assert report.scenario is Scenario.FUSION_ON_VS_OFF
    by_tensor = {row.tensor_index: row for row in report.rows}
    out = by_tensor["conv_relu:output:0"]
    assert out.ground_truth == "conv,relu"
    assert out.metrics.cosine_similarity > 0.9999 and 0 < out.metrics.max_relative_error < 2e-3
    assert by_tensor["conv_relu:input:0"].compared is False  # x: a Data op, not dumped on the fusion-off side


def test_cf_without_f_is_refused(fusion_on_off):
    p = fusion_on_off
    with pytest.raises(ValueError, match="-cf needs -f"):
        opdiff.compare(p["on"], p["off"], close_fusion_rule=p["off_rule"])


def test_quantized_model_against_the_float_golden(tmp_path: Path):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 16, 4, 4)).astype(np.float32)
    conv = rng.standard_normal((1, 16, 4, 4)).astype(np.float32)
    # The quantization rule maps the quantized model's ops back to the float model: its "qconv" is
    # the float "conv". The offline (NPU) rule only knows "qconv".
    quant_rule = build_fusion_map("quant", [("g", [
        make_op("x", "Data", id_=0, output_descs=[desc("x")]),
        make_op("qconv", "Conv2D", id_=1, inputs=["x:0"], original_names=["conv"], output_descs=[desc("conv")]),
    ])])
    offline = build_fusion_map("offline", [("g", [
        make_op("x", "Data", id_=0, output_descs=[desc("x")]),
        make_op("conv_quant_layer", "AscendQuant", id_=1, inputs=["x:0"], output_descs=[desc("conv_quant_layer")]),
        make_op("conv_fused", "Conv2D", id_=2, inputs=["conv_quant_layer:0"], original_names=["qconv"],
                output_descs=[desc("qconv")]),
    ])])
    golden, npu = tmp_path / "golden", tmp_path / "npu"
    golden.mkdir()
    npu.mkdir()
    np.save(golden / f"x.0.{TS}.npy", x)
    np.save(golden / f"conv.0.{TS}.npy", conv)
    opdiff.write_dump(npu / f"Conv2D.conv_fused.2.1.{TS + 2}", "conv_fused",
                      outputs=[Tensor(conv * 1.001, layout="NC1HWC0", dtype="float16")])
    opdiff.write_dump(npu / f"AscendQuant.conv_quant_layer.1.1.{TS + 1}", "conv_quant_layer",
                      inputs=[Tensor(x, dtype="float16")], outputs=[Tensor(np.round(x * 20), dtype="int8")])
    offline_rule = write_atc_json(offline, tmp_path / "off.json")
    report = opdiff.compare(npu, golden, fusion_rule=offline_rule, quant_fusion_rule=write_atc_json(quant_rule, tmp_path / "q.json"))
    by_tensor = {row.tensor_index: row for row in report.rows}
    assert by_tensor["conv_fused:output:0"].ground_truth == "conv"
    assert by_tensor["conv_fused:output:0"].metrics.cosine_similarity > 0.9999
    assert "conv_quant_layer:output:0" not in by_tensor  # AscendQuant outputs are not compared
    # Without the quant rule "qconv" has no golden: refused, as the reference refuses, naming the flag.
    with pytest.raises(ValueError, match="-q QUANT_RULE"):
        opdiff.compare(npu, golden, fusion_rule=offline_rule)


def test_npu_against_npu_in_different_shapes_is_compared_flat_with_a_note(tmp_path):
    value = np.arange(16, dtype=np.float32)
    for side, shape in (("a", (4, 4)), ("b", (2, 8))):
        (tmp_path / side).mkdir()
        opdiff.write_dump(tmp_path / side / f"Reshape.r.1.1.{TS}", "r", outputs=[Tensor(value.reshape(shape))])
    (row,) = opdiff.compare(tmp_path / "a", tmp_path / "b").rows
    assert row.compared and row.metrics.count == 16 and row.metrics.max_absolute_error == 0
    assert row.reasons[0].startswith("The shapes differ ([4, 4] vs [2, 8])")


def test_opdebug_records_are_not_compared_as_ops(tmp_path):
    from opdiff.dumps.opdebug_writer import core_entry, write_opdebug_dump

    value = np.ones(8, np.float32)
    for side in ("a", "b"):
        (tmp_path / side).mkdir()
        opdiff.write_dump(tmp_path / side / f"Add.add.1.1.{TS}", "add", outputs=[Tensor(value)])
    write_opdebug_dump(tmp_path / "a", [core_entry(task_id=1, stream_id=1)], timestamp=TS + 1)
    report = opdiff.compare(tmp_path / "a", tmp_path / "b")
    assert [row.npu_dump for row in report.rows] == ["add"]
    assert any("Opdebug.Node_OpDebug" in note and "an Opdebug overflow record" in note for note in report.notes)

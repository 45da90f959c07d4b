"""FFTS+ sliced dumps: the slices of an op are joined along the cut axis before comparing."""

import json
from pathlib import Path

import numpy as np

import opdiff
from opdiff.dumps import Tensor
from opdiff.graph import OutputDesc, write_atc_json
from opdiff.graph.grouping import build_fusion_map
from opdiff.graph.provenance import make_op

TS = 1700000000000000


def slicing_attr(shapes, cut_axis, ndim=4):
    threads = []
    for shape in shapes:
        threads.append([[{"lower": 0, "higher": d} for d in shape]])
    factors = [1] * ndim
    factors[cut_axis] = len(shapes)
    return json.dumps({"threadMode": 1, "slice_instance_num": len(shapes), "outputCutList": [factors],
                       "output_tensor_slice": threads})


def test_sliced_op_is_joined_and_compared(tmp_path: Path):
    rng = np.random.default_rng(5)
    full = rng.standard_normal((4, 20, 6, 6)).astype(np.float32)
    golden, npu = tmp_path / "golden", tmp_path / "npu"
    golden.mkdir()
    npu.mkdir()
    np.save(golden / f"conv.0.{TS}.npy", full)
    parts = np.split(full, 2, axis=0)  # cut along N into two threads
    attr = slicing_attr([p.shape for p in parts], cut_axis=0)
    for thread, part in enumerate(parts):
        # 9-field name: task type 4 (FFTS+), context 0, thread id, device 0
        opdiff.write_dump(npu / f"Conv2D.conv.7.1.{TS + 5}.4.0.{thread}.0", "conv",
                          outputs=[Tensor(part * 1.0002, layout="NC1HWC0", dtype="float16")], attrs=[("", attr)])
    rule = build_fusion_map("m", [("g", [make_op("conv", "Conv2D", output_descs=[OutputDesc("conv", 0, "NCHW", full.shape)])])])
    report = opdiff.compare(npu, golden, fusion_rule=write_atc_json(rule, tmp_path / "m.json"))
    (row,) = [r for r in report.rows if r.tensor_index == "conv:output:0"]
    assert row.shape == full.shape
    assert row.metrics.count == full.size and row.metrics.cosine_similarity > 0.99999


def test_one_slice_alone_is_compared_as_a_plain_dump(tmp_path: Path):
    golden, npu = tmp_path / "golden", tmp_path / "npu"
    golden.mkdir()
    npu.mkdir()
    x = np.ones((2, 16, 2, 2), np.float32)
    np.save(golden / f"conv.0.{TS}.npy", x)
    opdiff.write_dump(npu / f"Conv2D.conv.7.1.{TS + 5}.4.0.0.0", "conv", outputs=[Tensor(x, layout="NC1HWC0", dtype="float16")])
    rule = build_fusion_map("m", [("g", [make_op("conv", "Conv2D", output_descs=[OutputDesc("conv", 0, "NCHW", x.shape)])])])
    report = opdiff.compare(npu, golden, fusion_rule=write_atc_json(rule, tmp_path / "m.json"))
    assert report.rows[-1].compared and report.rows[-1].metrics.max_absolute_error == 0

"""A Caffe network through the whole chain: dump-caffe's golden, a device-style run of it (ATC's
Conv+BN+Scale+ReLU fusion, fp16 dumps) with one faulty convolution, its atc JSON, and
`opdiff compare`, which puts the faulty layer first."""

from __future__ import annotations

import csv

import pytest

from opdiff.cli import main

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx  # ONNX Runtime runs here: not a core-facing test

import opdiff  # noqa: E402
from tests.support.caffe_device_run import CaffeChain, write_faulty_chain  # noqa: E402


@pytest.fixture(scope="module")
def chain(tmp_path_factory) -> CaffeChain:
    return write_faulty_chain(tmp_path_factory.mktemp("caffe_chain"))


def test_compare_puts_the_faulty_layer_first(chain: CaffeChain, tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["compare", "-m", str(chain.dump), "-g", str(chain.golden), "-f", str(chain.rule), "-out", str(tmp_path)])
    capsys.readouterr()
    (table,) = tmp_path.glob("result_*.csv")
    rows = list(csv.DictReader(table.open(newline="")))
    outputs = [row for row in rows if ":output:" in row["TensorIndex"]]
    assert len(outputs) > 20 and all(row["CosineSimilarity"] not in ("", "NaN") for row in outputs)
    first = opdiff.compare(chain.dump, chain.golden, fusion_rule=chain.rule).first_failure()
    assert first is not None and first.tensor.op == chain.faulty, first


def test_the_fused_ops_find_their_layers_goldens(chain: CaffeChain) -> None:
    conv = opdiff.read_graph(chain.rule).op("res2a_branch2a")
    assert conv.original_names == ("res2a_branch2a", "bn_res2a_branch2a", "scale_res2a_branch2a", "res2a_branch2a_relu")
    report = opdiff.compare(chain.dump, chain.golden, fusion_rule=chain.rule)
    matched = [row for row in report.rows if row.tensor.op == "res2a_branch2a" and ":output:" in row.tensor_index]
    assert matched and matched[0].ground_truth.split(",")[-1] == "res2a_branch2a_relu"
    # the fused op's output is the in-place ReLU's golden (kept apart from the convolution's): it matches
    assert matched[0].metrics.cosine_similarity > 0.9999 and matched[0].metrics.allclose_fraction == 1.0

"""ATC's mixed precision (--mixlist): the lists read from CANN's ops-info JSON and modify_mixlist
files, the fp16 run that follows them (black ops fp32, white fp16, gray ones following upstream),
and a search under them, whose set is a minimum one of the mixed model and passes when applied."""

import itertools
import json

import numpy as np
import pytest

from opdiff.cli import main
from opdiff.conventions.mixlist import MixList, MixLists, read_mixlists


def _json(path, data):
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_an_ops_info_file_then_modify_files_apply_in_order(tmp_path):
    ops_info = _json(tmp_path / "aic-ascend310p-ops-info.json", {
        "Conv2D": {"precision_reduce": {"flag": "true"}, "input0": {"dtype": "float16"}},
        "Exp": {"precision_reduce": {"flag": "false"}},
        "Relu": {"op": {"pattern": "ElemWise"}},
    })
    first = _json(tmp_path / "m1.json", {"black-list": {"to-add": ["Conv2D"]}, "white-list": {"to-add": ["Relu"]}})
    second = _json(tmp_path / "m2.json", {"black-list": {"to-remove": ["Conv2D", "Exp"]}})
    assert read_mixlists([ops_info]).lists == {"Conv2D": MixList.WHITE, "Exp": MixList.BLACK, "Relu": MixList.GRAY}
    lists = read_mixlists([ops_info, first, second])
    assert (lists.of("Conv2D"), lists.of("Exp"), lists.of("Relu"), lists.of("Unnamed")) == (
        MixList.GRAY, MixList.GRAY, MixList.WHITE, MixList.GRAY)


@pytest.mark.parametrize("data, message", [
    ("[1, 2]", "one JSON object"),
    ("{not json", "not JSON"),
    ('{"black-list": {"to-add": "Exp"}}', "black-list.to-add is not a list"),
    ('{"black-list": {"add": ["Exp"]}, "white-list": {}}', "black-list wants an object"),
    ('{"white-list": {}, "gray-list": {"to-add": ["Exp"]}}', "'gray-list' is not a list"),
    ('{"Exp": {"precision_reduce": {"flag": "maybe"}}}', "flag 'maybe'"),
    ('{"Exp": 3}', "op type 'Exp' is not an object"),
])
def test_a_bad_mixlist_file_is_named_with_what_is_wrong(tmp_path, data, message):
    path = tmp_path / "bad.json"
    path.write_text(data, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as error:
        read_mixlists([path])
    assert str(path) in str(error.value)


def _needs_onnx():
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")


def _fp32_nodes(model, lists, kept=frozenset()):
    from opdiff.producers.onnx.mixed_precision import fp32_under_mix
    from opdiff.producers.onnx.runner import tensor_types

    return fp32_under_mix(model, lists, tensor_types(model), kept=kept)


@pytest.mark.onnx
def test_gray_ops_follow_upstream_and_a_kept_op_takes_its_gray_followers_along():
    _needs_onnx()
    from tests.support.fp16_fragile_models import exp_chain

    model, _ = exp_chain()  # scale (Mul) -> exp -> sum -> log -> log_softmax (reads scale and log)
    assert _fp32_nodes(model, MixLists({})) == {"scale", "exp", "sum", "log", "log_softmax"}  # all gray: the input is fp32
    white_mul = MixLists({"Mul": MixList.WHITE})
    assert _fp32_nodes(model, white_mul) == set()
    assert _fp32_nodes(model, white_mul, kept={"sum"}) == {"sum", "log"}  # log_softmax also reads scale, in fp16
    black_sum = MixLists({"Mul": MixList.WHITE, "ReduceSum": MixList.BLACK})
    assert _fp32_nodes(model, black_sum) == {"sum", "log"}


@pytest.mark.onnx
def test_dump_onnx_under_a_mixlist_keeps_the_black_ops_and_their_gray_followers_in_fp32(tmp_path):
    _needs_onnx()
    from tests.support.fp16_fragile_models import save_fragile_model
    from tests.support.precision_runs import output_of

    _, _, path, inputs = save_fragile_model(tmp_path, "overflow_then_divide")  # mm (MatMul) -> div -> relu
    white = _json(tmp_path / "white.json", {"MatMul": {"precision_reduce": {"flag": "true"}}})
    black = _json(tmp_path / "black.json", {"black-list": {"to-add": ["MatMul"]}})
    assert main(["dump-onnx", str(path), *inputs, "--dtype", "fp16", "--mixlist", str(white), "-o", str(tmp_path / "w")]) == 0
    assert np.isinf(output_of(tmp_path / "w", "relu")).any()  # the MatMul overflows in fp16; div and relu follow it
    assert main(["dump-onnx", str(path), *inputs, "--dtype", "fp16", "--mixlist", str(white), "--mixlist", str(black),
                 "-o", str(tmp_path / "b")]) == 0
    for op in ("mm", "div", "relu"):
        value = output_of(tmp_path / "b", op)
        assert value.dtype == np.float32 and np.isfinite(value).all(), op
    assert main(["dump-onnx", str(path), *inputs, "--mixlist", str(white), "-o", str(tmp_path / "x")]) == 2  # fp32 run


def _minimum_sets_under(model, feeds, lists):
    from opdiff.precision.evaluate import CpuEvaluator
    from opdiff.precision.target import Target
    from opdiff.producers.onnx.model_prep import prepare_model

    prepared = prepare_model(model).model
    evaluator = CpuEvaluator(prepared, feeds, Target(), mixlists=lists)
    candidates = sorted(n.name for n in prepared.graph.node if n.name not in evaluator.fp32_nodes(frozenset()))
    passing = [frozenset(s) for r in range(len(candidates) + 1) for s in itertools.combinations(candidates, r)
               if evaluator.evaluate(frozenset(s)).passed]
    assert frozenset() not in passing  # fragile under the mix too
    smallest = min(len(s) for s in passing)
    return [s for s in passing if len(s) == smallest]


@pytest.mark.onnx
def test_a_search_under_a_mixlist_finds_a_minimum_set_of_the_mixed_model(tmp_path, capsys):
    _needs_onnx()
    from tests.support.fp16_fragile_models import exp_chain, save_fragile_model

    model, feeds, path, inputs = save_fragile_model(tmp_path, "exp_chain")
    lists = {"Mul": {"precision_reduce": {"flag": "true"}}, "Log": {"precision_reduce": {"flag": "false"}}}
    ops_info = _json(tmp_path / "ops-info.json", lists)
    minimum = _minimum_sets_under(exp_chain()[0], feeds, read_mixlists([ops_info]))
    out = tmp_path / "p"
    assert main(["precision", str(path), *inputs, "--mixlist", str(ops_info), "-out", str(out)]) == 0, capsys.readouterr().err
    report = json.loads((out / "precision.json").read_text())
    kept = frozenset(entry["op"] for entry in report["kept"])
    assert kept in minimum, (kept, minimum)
    assert "log" not in {c["op"] for c in report["candidates"]}  # black-listed: fp32 already, not a candidate
    from tests.support.precision_runs import passes_with

    mix = ["--mixlist", str(ops_info)]
    assert passes_with(tmp_path, model, feeds, path, inputs, out / "keep_dtype.cfg", mix)
    for name in kept:  # 1-minimal: without any one entry it fails
        fewer = tmp_path / f"without_{name}.cfg"
        fewer.write_text("".join(f"{k}\n" for k in sorted(kept - {name})))
        assert not passes_with(tmp_path, model, feeds, path, inputs, fewer, mix), name


@pytest.mark.onnx
def test_mixlist_with_qdq_is_refused(tmp_path, capsys):
    _needs_onnx()
    from tests.support.fp16_fragile_models import save_fragile_model

    _, _, path, inputs = save_fragile_model(tmp_path, "exp_chain")
    ops_info = _json(tmp_path / "ops-info.json", {})
    assert main(["precision", str(path), *inputs, "--qdq", "1", "--mixlist", str(ops_info), "-out", str(tmp_path / "p")]) == 2
    assert "--mixlist" in capsys.readouterr().err

"""opdiff precision on models the tests build, each with a known fp16-fragile op and at most 12
candidates: an exhaustive search finds every minimum set; the one found is among them, it passes
when applied with dump-onnx, and removing any one op of it fails."""

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx

from opdiff.precision.candidates import float_ops  # noqa: E402
from opdiff.precision.evaluate import CpuEvaluator  # noqa: E402
from opdiff.precision.run import find_what_to_keep  # noqa: E402
from opdiff.precision.search import Outcome, SearchMode, search  # noqa: E402
from opdiff.precision.steps import Steps  # noqa: E402
from opdiff.precision.target import Target  # noqa: E402
from opdiff.producers.onnx.model_prep import prepare_model  # noqa: E402
from opdiff.producers.onnx.runner import tensor_types  # noqa: E402
from tests.support.fp16_fragile_models import FRAGILE_MODELS  # noqa: E402


def _minimum_sets(name):
    model, feeds = FRAGILE_MODELS[name]()
    prepared = prepare_model(model).model
    evaluator = CpuEvaluator(prepared, feeds, Target())
    candidates = [c.name for c in float_ops(prepared, tensor_types(prepared))]
    assert len(candidates) <= 12
    passing = [frozenset(s) for r in range(len(candidates) + 1) for s in itertools.combinations(candidates, r)
               if evaluator.evaluate(frozenset(s)).passed]
    smallest = min(len(s) for s in passing)
    return evaluator, candidates, [s for s in passing if len(s) == smallest]


@pytest.mark.parametrize("name", sorted(FRAGILE_MODELS))
@pytest.mark.parametrize("mode", list(SearchMode))
def test_the_set_found_is_a_minimum_one(name, mode, tmp_path):
    evaluator, candidates, minimum = _minimum_sets(name)
    assert not evaluator.evaluate(frozenset()).passed  # the model is fragile: nothing kept fails
    model, feeds = FRAGILE_MODELS[name]()
    from opdiff.precision.run import PrecisionOptions

    finding = find_what_to_keep(model, feeds, Target(), tmp_path, PrecisionOptions(search=mode))
    assert finding.result.outcome is Outcome.FOUND
    assert frozenset(finding.result.kept) in minimum, (finding.result.kept, minimum)
    n, k = len(candidates), len(finding.result.kept)
    if mode is SearchMode.BISECT:
        assert len(finding.steps.order) <= 2 * k * math.log2(n) + k  # the empty and the full set included


def test_bisect_stays_within_its_bound_on_many_candidates():
    ranked = [f"op{i}" for i in range(64)]
    for needed in ({"op5"}, {"op3", "op40"}, {"op1", "op20", "op63"}):
        steps = Steps(lambda kept, needed=needed: _fake(kept, needed))
        result = search(ranked, steps, SearchMode.BISECT)
        assert set(result.kept) == needed
        k = len(needed)
        assert len(steps.order) <= 2 * k * math.log2(64) + k


def _fake(kept, needed):
    from opdiff.precision.evaluate import Evaluation
    from opdiff.precision.target import OutputCheck

    return Evaluation(kept, (OutputCheck("y", 1.0, 0.0, needed <= kept),), 0.0)


def test_a_search_killed_halfway_and_resumed_gives_the_same_result(tmp_path):
    model, feeds = FRAGILE_MODELS["layer_norm_over_offset"]()
    whole = find_what_to_keep(model, feeds, Target(), tmp_path / "whole")
    log = tmp_path / "whole" / "steps.jsonl"
    lines = log.read_text().splitlines()
    half = tmp_path / "half"
    half.mkdir()
    (half / "steps.jsonl").write_text("\n".join(lines[: len(lines) // 2]) + "\n" + lines[len(lines) // 2][:20])  # a torn last line
    resumed = find_what_to_keep(model, feeds, Target(), half, resume=True)
    assert resumed.result == whole.result
    assert resumed.steps.made == len(lines) - len(lines) // 2
    assert len((half / "steps.jsonl").read_text().splitlines()) == len(lines)


def test_keeping_everything_still_failing_says_precision_is_not_the_cause(tmp_path):
    from tests.support.onnx_models import mlp_model

    model, _, _ = mlp_model()
    x = np.random.default_rng(3).standard_normal((2, 4)).astype(np.float32)
    finding = find_what_to_keep(model, {"in/x": x}, Target.parse(["CosineSimilarity=1.5"]), tmp_path)
    assert finding.result.outcome is Outcome.NOT_REACHABLE  # not even float32 everywhere reaches it
    assert len(finding.steps.order) == 2  # the empty set, then every candidate


def test_a_model_that_passes_as_it_is_needs_nothing(tmp_path):
    from tests.support.onnx_models import mlp_model

    model, _, _ = mlp_model()
    finding = find_what_to_keep(model, {"in/x": np.ones((2, 4), np.float32)}, Target(), tmp_path)
    assert finding.result.outcome is Outcome.NOTHING_NEEDED and finding.result.kept == ()
    assert len(finding.steps.order) == 1


def test_ranking_puts_the_op_that_breaks_first(tmp_path):
    model, feeds = FRAGILE_MODELS["exp_chain"]()
    finding = find_what_to_keep(model, feeds, Target(), tmp_path)
    assert finding.ranked[0].name == "sum"  # the sum overflows; the Log and Sub only pass the inf on


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_an_isolation_csv_ranks_by_its_local_errors(tmp_path):
    from opdiff.precision.candidates import read_local_errors
    from opdiff.precision.run import PrecisionOptions

    model, feeds = FRAGILE_MODELS["exp_chain"]()
    csv = _write(tmp_path / "isolation.csv", "NPUDump,TensorIndex,OriginalOps,LocalCosineSimilarity,LocalNormRatioError\n"
                 "Log.log,log:output:0,log,0.5,0.2\nExp.exp,exp:output:0,exp;scale,0.99,0.001\n")
    finding = find_what_to_keep(model, feeds, Target(), tmp_path / "out", PrecisionOptions(local_errors=read_local_errors(csv)))
    assert [c.name for c in finding.ranked[:3]] == ["log", "scale", "exp"]  # a tie keeps graph order
    assert sorted(finding.result.kept) == ["log", "sum"]  # the same set, found from another order


def test_the_cost_counts_the_multiply_adds_kept(tmp_path):
    from opdiff.precision.evaluate import Mode
    from opdiff.precision.files import report_json

    model, feeds = FRAGILE_MODELS["softmax_of_large_logits"]()
    finding = find_what_to_keep(model, feeds, Target(), tmp_path)
    cost = report_json(finding, Mode.FP16)["cost"]
    assert cost["multiply_adds_kept"] == 4 * 32 * 32 and cost["share_of_multiply_adds"] == 1.0  # the MatMul, kept


def test_a_type_whose_every_op_is_kept_is_one_op_type_line_and_a_mixlist(tmp_path):
    import json

    from opdiff.conventions.keep_dtype import read_keep_dtype
    from opdiff.precision.evaluate import Mode
    from opdiff.precision.files import write_outputs

    model, feeds = FRAGILE_MODELS["exp_chain"]()
    finding = find_what_to_keep(model, feeds, Target(), tmp_path)
    types = {"scale": "Mul", "exp": "Exp", "sum": "ReduceSumD", "log": "ReduceSumD", "log_softmax": "Sub"}  # as a rule might say
    write_outputs(finding, tmp_path, Mode.FP16, types)
    keep = read_keep_dtype(tmp_path / "keep_dtype.cfg")
    assert keep.names == () and keep.types == ("ReduceSumD",)
    mixlist = json.loads((tmp_path / "modify_mixlist.json").read_text())
    assert mixlist["black-list"]["to-add"] == ["ReduceSumD"]


def test_own_errors_come_from_one_cut_run_and_leave_inherited_errors_out(tmp_path):
    import math

    from opdiff.precision.candidates import relative_error
    from opdiff.precision.own_errors import own_fp16_errors
    from opdiff.producers.onnx.runner import run_exposing_all

    model, feeds = FRAGILE_MODELS["overflow_then_divide"]()  # mm overflows; div and relu only pass its inf on
    prepared = prepare_model(model).model
    evaluator = CpuEvaluator(prepared, feeds, Target())
    golden = run_exposing_all(prepared, feeds).tensors
    own = own_fp16_errors(evaluator)
    assert math.isinf(own["mm"])
    assert math.isinf(own["div"])  # it reads the MatMul's right value as fp16 reads it: past 65,504
    assert 0 < own["relu"] < 1e-3  # it reads the Div's right value: fp16's rounding alone
    end_to_end = run_exposing_all(evaluator.candidate_model(frozenset()), feeds).tensors
    assert math.isinf(relative_error(end_to_end["y"], golden["y"]))  # what relu writes in the run with nothing kept
    ranked = find_what_to_keep(model, feeds, Target(), tmp_path).ranked
    assert [c.name for c in ranked] == ["mm", "div", "relu"]


def test_a_sequence_between_ops_is_run_and_ranked_not_cut(tmp_path):
    # SplitToSequence -> SequenceAt -> an overflowing MatMul -> Div: the sequence is no tensor, so
    # the fp16 copy casts none of it and the cut run leaves it connected (a sequence cannot be fed).
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(35)
    x = rng.integers(60, 100, (2, 16, 16)).astype(np.float32)
    w = rng.integers(60, 100, (16, 16)).astype(np.float32) * np.float32(2)
    nodes = [helper.make_node("SplitToSequence", ["x"], ["seq"], name="split", axis=0, keepdims=0),
             helper.make_node("SequenceAt", ["seq", "zero"], ["first"], name="at"),
             helper.make_node("MatMul", ["first", "w"], ["mm_out"], name="mm"),
             helper.make_node("Div", ["mm_out", "scale"], ["y"], name="div")]
    graph = helper.make_graph(nodes, "seq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16, 16])],
                              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array(1e4, np.float32), "scale"),
                               numpy_helper.from_array(np.array(0, np.int64), "zero")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
    assert CpuEvaluator(prepare_model(model).model, {"x": x}, Target()).types["seq"] == "seq(tensor(float))"
    finding = find_what_to_keep(model, {"x": x}, Target(), tmp_path)
    assert finding.notes == [] and finding.result.outcome is Outcome.FOUND  # ranked by own errors: the cut run ran
    assert finding.ranked[0].name == "mm" and "mm" in finding.result.kept

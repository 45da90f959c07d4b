"""`opdiff precision` from the command line: the files it writes, applying keep_dtype.cfg with
dump-onnx, and its exit codes."""

import json
import re

import pytest

from opdiff.cli import main

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx

from opdiff.conventions.keep_dtype import read_keep_dtype  # noqa: E402
from tests.support.fp16_fragile_models import FRAGILE_MODELS, save_fragile_model  # noqa: E402
from tests.support.precision_runs import passes_with  # noqa: E402


def _saved(tmp_path, name):
    return save_fragile_model(tmp_path, name)


@pytest.mark.parametrize("name", sorted(FRAGILE_MODELS))
def test_keep_dtype_cfg_applied_with_dump_onnx_passes_and_each_entry_is_needed(tmp_path, name, capsys):
    model, feeds, path, inputs = _saved(tmp_path, name)
    assert main(["precision", str(path), *inputs, "-out", str(tmp_path / "out")]) == 0
    assert "kept in fp32" in capsys.readouterr().out
    keep = tmp_path / "out" / "keep_dtype.cfg"
    kept = read_keep_dtype(keep).names
    assert kept
    report = json.loads((tmp_path / "out" / "precision.json").read_text())
    assert [entry["op"] for entry in report["kept"]] == list(kept) and report["outcome"] == "found"
    assert len(report["gains"]) == len(kept)
    page = (tmp_path / "out" / "precision.html").read_text()  # compare's HTML report, the kept ops marked kept on its graph
    data = json.loads(re.search(r'<script id="opdiff-data" type="application/json">(.*?)</script>', page, re.S).group(1))
    graph = data["graph"]
    assert sorted(graph["ops"][k] for k in graph["kept"]) == sorted(kept) and set(graph["kept_as"]) == {"kept in fp32"}
    assert graph["culprits"] == [] and {f["kind"] for f in data["findings"]} == {"kept in fp32"}  # a fix, not a culprit
    assert passes_with(tmp_path, model, feeds, path, inputs, keep)
    for name_left_out in kept:
        fewer = tmp_path / f"without_{name_left_out}.cfg"
        fewer.write_text("".join(f"{k}\n" for k in kept if k != name_left_out))
        assert not passes_with(tmp_path, model, feeds, path, inputs, fewer), name_left_out


def test_an_unknown_op_in_a_keep_file_is_exit_2_naming_it(tmp_path, capsys):
    _, _, path, inputs = _saved(tmp_path, "exp_chain")
    keep = tmp_path / "keep.cfg"
    keep.write_text("sum\nno_such_op\nOpType::Exp\n")
    assert main(["precision", str(path), *inputs, "--keep-fp32-file", str(keep), "-out", str(tmp_path / "p")]) == 2
    assert "no_such_op" in capsys.readouterr().err
    assert main(["dump-onnx", str(path), *inputs, "--dtype", "fp16", "--keep-fp32-file", str(keep), "-o", str(tmp_path / "d")]) == 2
    assert "no_such_op" in capsys.readouterr().err


def test_op_type_lines_keep_every_op_of_the_onnx_type(tmp_path):
    _, _, path, inputs = _saved(tmp_path, "exp_chain")
    keep = tmp_path / "keep.cfg"
    keep.write_text("OpType::ReduceSum\nlog\n")
    assert main(["dump-onnx", str(path), *inputs, "--dtype", "fp16", "--keep-fp32-file", str(keep), "-o", str(tmp_path / "d")]) == 0
    notes = json.loads((tmp_path / "d" / "manifest.json").read_text())["notes"]
    assert "node sum kept in fp32" in notes and "node log kept in fp32" in notes


def test_a_target_no_set_reaches_is_exit_3_with_what_was_tried(tmp_path, capsys):
    _, _, path, inputs = _saved(tmp_path, "exp_chain")
    assert main(["precision", str(path), *inputs, "--fail-under", "CosineSimilarity=1.5", "-out", str(tmp_path / "p")]) == 3
    out = capsys.readouterr().out
    assert "precision is not the cause" in out and "Tried 2 sets" in out


def test_nothing_to_keep_is_said_and_exit_0(tmp_path, capsys):
    from tests.support.onnx_models import mlp_model

    model, _, _ = mlp_model()
    onnx.save(model, str(tmp_path / "mlp.onnx"))
    assert main(["precision", str(tmp_path / "mlp.onnx"), "--random-inputs", "0", "-out", str(tmp_path / "p")]) == 0
    assert "Nothing needs keeping" in capsys.readouterr().out
    assert (tmp_path / "p" / "keep_dtype.cfg").read_text() == ""


def test_a_comparison_of_a_device_run_ranks_the_candidates(tmp_path):
    _, _, path, inputs = _saved(tmp_path, "exp_chain")
    assert main(["dump-onnx", str(path), *inputs, "-o", str(tmp_path / "g")]) == 0
    assert main(["dump-onnx", str(path), *inputs, "--dtype", "fp16", "-o", str(tmp_path / "d")]) == 0
    assert main(["precision", str(path), *inputs, "-m", str(tmp_path / "d" / "dump"), "-g", str(tmp_path / "g" / "golden"),
                 "-f", str(tmp_path / "d" / "fusion_rule.json"), "-out", str(tmp_path / "p")]) == 0
    report = json.loads((tmp_path / "p" / "precision.json").read_text())
    assert report["candidates"][0]["op"] == "sum"  # it overflows: the device run's error starts there
    assert sorted(entry["op"] for entry in report["kept"]) == ["log", "sum"]
    assert main(["precision", str(path), *inputs, "-m", str(tmp_path / "d" / "dump"), "-out", str(tmp_path / "q")]) == 2

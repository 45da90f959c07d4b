"""`opdiff precision MODEL.pb`: a frozen TensorFlow graph, searched through the device loop only. The
stand-in device is dump-tf's fp16 run: the build copies a fusion rule that one dump-tf run made
into {om}, the run is `dump-tf --dtype fp16 --keep-fp32-file {keep_dtype} -o {dump}`. The graph is a
MatMul past fp16's 65504 scaled back by 1e-4: only the MatMul and the scale kept together pass.
Runs in the venv tools/tf_env.py builds (.ci/run)."""

import json
import shlex
import shutil
import sys

import numpy as np
import pytest

from tests.support.tf_required import tensorflow_or_skip

tf = tensorflow_or_skip()
pytestmark = pytest.mark.tf

from opdiff.cli import main  # noqa: E402
from opdiff.precision.device import read_outputs  # noqa: E402
from opdiff.precision.target import Target  # noqa: E402
from opdiff.producers.tf.dump import run_frozen  # noqa: E402
from tests.support.tf_graphs import fp16_overflow_graph_def, fp16_overflow_input, write_pb  # noqa: E402

NEEDED = ["fc/matmul", "scale"]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """The .pb, its --input flags, and the device loop's --build and --run flags."""
    folder = tmp_path_factory.mktemp("tf_precision")
    np.save(folder / "x.npy", fp16_overflow_input())
    path = write_pb(fp16_overflow_graph_def(), folder / "overflow.pb")
    inputs = ["--input", f"x={folder / 'x.npy'}"]
    assert main(["dump-tf", str(path), *inputs, "--dtype", "fp16", "-o", str(folder / "rule")]) == 0  # the rule, made once
    dump_tf = shlex.join([sys.executable, "-m", "opdiff", "dump-tf", str(path), *inputs, "--dtype", "fp16"])
    loop = ["--build", f"cp {shlex.quote(str(folder / 'rule' / 'fusion_rule.json'))} {{om}}",
            "--run", f"{dump_tf} --keep-fp32-file {{keep_dtype}} -o {{dump}}"]
    return path, inputs, loop


@pytest.fixture(scope="module")
def searched(model, tmp_path_factory):
    """The output folder of one search (five device steps of one dump-tf process each) and its console text."""
    path, inputs, loop = model
    out = tmp_path_factory.mktemp("search") / "p"
    assert main(["precision", str(path), *inputs, *loop, "-out", str(out)]) == 0
    return out


@pytest.mark.slow  # the search: five device steps, one dump-tf process each (about 16 s on shared cores)
def test_the_device_loop_finds_the_pair_in_graph_order(searched):
    report = json.loads((searched / "precision.json").read_text())
    assert report["outcome"] == "found" and [k["op"] for k in report["kept"]] == NEEDED
    assert [c["op"] for c in report["candidates"]] == ["fc/matmul", "scale", "bias"]  # no Placeholder, Const or Identity
    assert any("ranked in graph order" in note for note in report["notes"])
    assert (searched / "keep_dtype.cfg").read_text() == "fc/matmul\nscale\n"
    steps = [json.loads(line) for line in (searched / "steps.jsonl").read_text().splitlines()]
    assert [s["kept"] for s in steps] == [[], ["bias", "fc/matmul", "scale"], ["fc/matmul"], NEEDED, ["scale"]]
    assert (searched / "device" / "step_0001" / "keep_dtype.cfg").read_text() == ""
    page = (searched / "precision.html").read_text()
    assert "fc/matmul" in page and "keep in fp32 (ATC --keep_dtype)" in page


@pytest.mark.slow  # reads the search's folder
def test_the_keep_file_passes_on_the_stand_in_and_each_entry_is_needed(model, searched, tmp_path):
    path, inputs, _ = model
    graph_def = tf.compat.v1.GraphDef()
    graph_def.ParseFromString(path.read_bytes())
    golden = {"out:0": run_frozen(graph_def, {"x": fp16_overflow_input()}).fetched.tensors["out:0"]}
    kept = (searched / "keep_dtype.cfg").read_text().split()

    def passes(names):
        keep = tmp_path / f"keep_{len(names)}_{'_'.join(n.replace('/', '-') for n in names)}.cfg"
        keep.write_text("".join(f"{name}\n" for name in names))
        out = keep.with_suffix("")
        assert main(["dump-tf", str(path), *inputs, "--dtype", "fp16", "--keep-fp32-file", str(keep), "-o", str(out)]) == 0
        found = read_outputs(out / "dump", out / "fusion_rule.json", {"out:0": ("out", 0)})
        return all(check.passed for check in Target().check(found, golden))

    assert passes(kept)
    assert not any(passes([k for k in kept if k != name]) for name in kept)  # 1-minimal


@pytest.mark.slow  # reads the search's folder
def test_resume_replays_the_step_log_without_a_device_step(searched, model, tmp_path):
    path, inputs, _ = model
    out = tmp_path / "again"
    shutil.copytree(searched, out)
    assert main(["precision", str(path), *inputs, "--build", "false", "--run", "false", "--resume", "-out", str(out)]) == 0
    report = json.loads((out / "precision.json").read_text())
    assert [k["op"] for k in report["kept"]] == NEEDED and report["evaluations"] == 5 and report["evaluations_made_now"] == 0


def test_a_pb_without_the_device_loop_or_with_qdq_is_exit_2_naming_it(model, tmp_path, capsys):
    path, inputs, _ = model
    assert main(["precision", str(path), *inputs, "-out", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "only through the device loop" in err and "--build" in err
    assert not (tmp_path / "p").exists()
    assert main(["precision", str(path), *inputs, "--qdq", "2", "--build", "true", "--run", "true", "-out", str(tmp_path / "q")]) == 2
    assert "QDQ int8 copy" in capsys.readouterr().err

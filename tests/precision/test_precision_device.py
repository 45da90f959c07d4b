"""opdiff precision's device loop with a stand-in device: the build and run commands are dump-onnx
runs with the candidate keep file (the build keeps the fusion rule as {om}, the run dumps into
{dump}). It finds the same set as the CPU evaluations; a failing build stops it with exit 2."""

import json
import shlex
import sys

import pytest

from opdiff.cli import main

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx

from tests.support.fp16_fragile_models import save_fragile_model  # noqa: E402


def _stand_in(tmp_path, name):
    """The device: the build copies the rule of one fp16 dump-onnx run made here (a kept set changes
    no op name the outputs are found by), the run is dump-onnx with the candidate keep file."""
    _, _, path, inputs = save_fragile_model(tmp_path, name)
    assert main(["dump-onnx", str(path), *inputs, "--dtype", "fp16", "-o", str(tmp_path / "stand_in")]) == 0
    feed = shlex.quote(f"x={tmp_path / 'x.npy'}")
    build = f"cp {shlex.quote(str(tmp_path / 'stand_in' / 'fusion_rule.json'))} {{om}}"
    run = (f"{shlex.quote(sys.executable)} -m opdiff dump-onnx {shlex.quote(str(path))} --input {feed} --dtype fp16 "
           "--keep-fp32-file {keep_dtype} -o {dump}")
    return path, inputs, build, run


@pytest.mark.slow  # a dump-onnx process per step
def test_the_device_loop_finds_the_cpu_set_and_resumes_to_it(tmp_path):
    path, inputs, build, run = _stand_in(tmp_path, "exp_chain")
    assert main(["precision", str(path), *inputs, "-out", str(tmp_path / "cpu")]) == 0
    assert main(["precision", str(path), *inputs, "--build", build, "--run", run, "-out", str(tmp_path / "dev")]) == 0
    cpu = json.loads((tmp_path / "cpu" / "precision.json").read_text())
    device = json.loads((tmp_path / "dev" / "precision.json").read_text())
    assert device["kept"] == cpu["kept"] and device["outcome"] == "found"
    assert (tmp_path / "dev" / "keep_dtype.cfg").read_text() == (tmp_path / "cpu" / "keep_dtype.cfg").read_text()
    assert (tmp_path / "dev" / "device" / "step_0001" / "keep_dtype.cfg").read_text() == ""  # the empty set first
    # killed halfway (SIGKILL once half the steps are logged), then resumed: the same set, the rest evaluated
    lines = (tmp_path / "dev" / "steps.jsonl").read_text().splitlines()
    half = tmp_path / "half"
    logged = _kill_after(len(lines) // 2, [sys.executable, "-m", "opdiff", "precision", str(path), *inputs, "--build", build,
                                            "--run", run, "-out", str(half)], half / "steps.jsonl")
    assert 0 < logged < len(lines)
    assert main(["precision", str(path), *inputs, "--build", build, "--run", run, "--resume", "-out", str(half)]) == 0
    resumed = json.loads((half / "precision.json").read_text())
    assert resumed["kept"] == device["kept"] and resumed["evaluations"] == device["evaluations"]
    assert resumed["evaluations_made_now"] == len(lines) - logged


def _kill_after(steps, argv, log):
    """Run `argv` in a session of its own and SIGKILL it once `log` holds `steps` lines; how many it held."""
    import os
    import signal
    import subprocess
    import time

    child = subprocess.Popen(argv, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and child.poll() is None:
            if log.is_file() and len(log.read_text().splitlines()) >= steps:
                break
            time.sleep(0.05)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    return len([line for line in log.read_text().splitlines() if line.endswith("}")])


def test_a_failing_build_is_exit_2_with_its_output_and_step(tmp_path, capsys):
    path, inputs, _, run = _stand_in(tmp_path, "exp_chain")
    build = "echo the compiler says no >&2; exit 7"
    assert main(["precision", str(path), *inputs, "--build", build, "--run", run, "-out", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err
    assert "step 1" in err and "exited 7" in err and "the compiler says no" in err


def test_a_command_past_its_timeout_stops_the_search(tmp_path, capsys):
    path, inputs, _, _ = _stand_in(tmp_path, "exp_chain")
    assert main(["precision", str(path), *inputs, "--build", "true", "--run", "sleep 5", "--command-timeout", "0.5",
                 "-out", str(tmp_path / "p")]) == 2
    assert "ran past 0.5 s" in capsys.readouterr().err

"""`opdiff graph`: summary, JSON export, exit codes."""

import json
import os
import subprocess
import sys

import pytest

import opdiff
from opdiff.cli import main
from opdiff.graph.atc_json import fusion_map_from_json
from opdiff.graph.model_def_builder import simple_model_def
from opdiff.graph.om.writer import MODEL_DEF, write_om


def run_cli(*args, columns=None):
    """`opdiff graph ARGS` at the caller's terminal width, or at `columns`."""
    env = None if columns is None else dict(os.environ, COLUMNS=columns)
    return subprocess.run([sys.executable, "-m", "opdiff", "graph", *map(str, args)], capture_output=True, text=True, env=env)


def test_summary_and_json_export_of_an_om(tmp_path):
    model = write_om(tmp_path / "m.om", [[(MODEL_DEF, simple_model_def().SerializeToString())]])
    out = tmp_path / "out" / "m.json"
    result = run_cli(model, "--json", out, columns="200")  # the tables' cells are read: a width where they fit
    assert result.returncode == 0, result.stderr
    for text in ("ge_default", "MultiToOne", "Conv2D", "conv1/Conv2D_relu_fused", "conv1/Conv2D, conv1/Relu", "[1, 3, 8, 8]",
                 ".om offline model", "IR_MODEL, wide partition tables", "1 (0: MODEL_DEF)"):
        assert text in result.stdout
    assert fusion_map_from_json(json.loads(out.read_text())) == opdiff.read_graph(model)
    assert [p.name for p in out.parent.iterdir()] == ["m.json"]  # no temporary left behind
    narrow = run_cli(model, columns="60")
    assert narrow.returncode == 0 and "…" not in narrow.stdout  # long op names fold onto a second line, whole


@pytest.mark.cli_output
def test_bad_input_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "bad.om"
    bad.write_bytes(b"IMOD" + bytes(10))
    result = run_cli(bad)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.strip().count("\n") == 0
    assert f"opdiff graph: error: {bad}: too short for an .om header" in result.stderr


@pytest.mark.cli_output
def test_missing_file_and_unwritable_output_exit_2(tmp_path, capsys):
    assert main(["graph", str(tmp_path / "none.json")]) == 2
    model = write_om(tmp_path / "m.om", [[(MODEL_DEF, simple_model_def().SerializeToString())]])
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["graph", str(model), "--json", str(blocker / "x.json")]) == 2
    assert "opdiff graph: error:" in capsys.readouterr().err


@pytest.mark.cli_output
def test_limit_caps_table_rows(tmp_path):
    from opdiff.graph.model_def_builder import model_def, op_def

    ops = [op_def(f"op{k}", f"Type{k}", original_names=[f"a{k}", f"b{k}"]) for k in range(30)]
    model = write_om(tmp_path / "m.om", [[(MODEL_DEF, model_def("many", [("g", ops)]).SerializeToString())]])
    short = run_cli(model, "--limit", "3").stdout
    full = run_cli(model, "--limit", "0").stdout
    assert "Type2 " in short and "Type3 " not in short
    assert "Type29" in full and "fused ops (30)" in full


@pytest.mark.cli_output
def test_summary_of_json_and_notes(tmp_path):
    model = write_om(tmp_path / "m.om", [[(MODEL_DEF, simple_model_def().SerializeToString()), (42, b"?")]])
    result = run_cli(model)
    assert result.returncode == 0
    assert "skipped partition 1 of unknown type 42" in result.stdout
    rule = tmp_path / "rule.json"
    assert main(["graph", str(model), "--json", str(rule)]) == 0
    result = run_cli(rule)
    assert result.returncode == 0 and "atc --mode=1 JSON" in result.stdout and "IR_MODEL" not in result.stdout


@pytest.mark.cli_output
def test_names_that_look_like_markup_print_verbatim(tmp_path):
    from opdiff.graph.model_def_builder import model_def, op_def

    ops = [op_def("x[bold]", "Data"), op_def("y[/]", "Relu", inputs=["x[bold]:0"], original_names=["a[red]", "b"])]
    model = write_om(tmp_path / "m.om", [[(MODEL_DEF, model_def("m[i]", [("g", ops)]).SerializeToString())]])
    result = run_cli(model)
    assert result.returncode == 0, result.stderr
    for text in ("x[bold]", "y[/]", "a[red], b", "model m[i]"):
        assert text in result.stdout


def test_each_command_module_registers_the_command_it_is_named_after():
    """The CLI imports only the module of the command on the command line, found by its name."""
    import argparse
    import importlib

    from opdiff.cli import COMMAND_MODULES, command_name

    for module in COMMAND_MODULES:
        subparsers = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(module).register(subparsers)
        names = list(subparsers.choices)
        assert names[0] == command_name(module), module
        # other names are aliases of the same command (file_compare, the reference's spelling)
        assert all(subparsers.choices[name] is subparsers.choices[names[0]] for name in names), module


@pytest.mark.cli_output
def test_graph_command_starts_without_numpy_or_the_other_commands(tmp_path):
    model = write_om(tmp_path / "m.om", [[(MODEL_DEF, simple_model_def().SerializeToString())]])
    probe = ("import sys\nfrom opdiff.cli import main\nassert main(['graph', sys.argv[1]]) == 0\n"
             "print(sorted(name for name in sys.modules if name == 'numpy' or name.startswith('opdiff.commands.')))")
    result = subprocess.run([sys.executable, "-c", probe, str(model)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "['opdiff.commands.errors', 'opdiff.commands.graph']"

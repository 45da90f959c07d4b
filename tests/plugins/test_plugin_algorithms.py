"""Plug-in algorithms (-c DIR, -a, -alg Name) with the reference's contract: where their column goes,
what they get, what a failing or slow one gives, and the reference's own ten scripts run as plug-ins
agreeing with opdiff's built-in columns."""

from __future__ import annotations

import csv
import json
import pickle
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

import numpy as np
import pytest

import opdiff
from opdiff.engine.options import CompareOptions
from opdiff.numerics.schema import ALGORITHMS
from opdiff.plugins import PluginError, Plugins, read_plugins
from tests.support.plugin_folders import REFERENCE_PREFIX, reference_algorithms, write_plugin_folder, write_script
from tests.support.side_by_side_cases import Case, fusion_case


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return fusion_case(tmp_path_factory.mktemp("plugins") / "case")


def _rows(path: Path) -> List[Dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _header(path: Path) -> List[str]:
    return path.read_text(encoding="utf-8").splitlines()[0].split(",")


def _compare(case: Case, out: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "opdiff", "compare", "-m", str(case.my), "-g", str(case.golden), "-f", str(case.rule),
               "-out", str(out), *flags]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def test_plugin_columns_sit_where_alg_names_them(case: Case, tmp_path: Path) -> None:
    folder = write_plugin_folder(tmp_path / "plugins")
    out = _compare(case, tmp_path / "out", "-c", str(folder), "-alg", "0,OwnPeak,1,Boom,Nothing,NotText", "-a", "OwnPeak:scale=2")
    assert out.returncode == 0, out.stderr
    result = next((tmp_path / "out").glob("result_*.csv"))
    header = _header(result)
    assert header[-7:] == ["CosineSimilarity", "OwnPeak", "MaxAbsoluteError", "Boom", "Nothing", "NotText", "CompareFailReason"]
    compared = [row for row in _rows(result) if row["CosineSimilarity"] not in ("NaN", "")]
    assert compared
    for row in compared:
        # -a's value reaches the script as the string "2"; the script scales by it
        assert _agree(row["OwnPeak"], f'{2 * float(row["MaxAbsoluteError"]):.6f}'), row
        assert row["Boom"] == row["Nothing"] == row["NotText"] == "NaN"
        reason = row["CompareFailReason"]
        assert "Failed to execute 'compare' in 'Boom'. boom" in reason
        assert "Failed to execute 'compare' in 'Nothing'. cannot unpack non-iterable NoneType object" in reason
        assert "Failed to execute 'compare' in 'NotText'. compare" in reason


def test_all_never_takes_a_plugin(case: Case, tmp_path: Path) -> None:
    folder = write_plugin_folder(tmp_path / "plugins", own=("OwnPeak",))
    assert _compare(case, tmp_path / "out", "-c", str(folder)).returncode == 0
    header = _header(next((tmp_path / "out").glob("result_*.csv")))
    assert header[-11:-1] == list(ALGORITHMS)


@pytest.mark.parametrize("make", ["missing", "file", "empty", "syntax", "no compare", "unknown name"])
def test_a_bad_folder_exits_2_with_one_line(case: Case, tmp_path: Path, make: str) -> None:
    folder = tmp_path / "plugins"
    algorithm = "OwnPeak"
    if make == "file":
        folder.write_text("x")
    elif make == "empty":
        folder.mkdir()
    elif make == "syntax":
        write_script(folder, "OwnPeak", "def compare(a, b, args)\n")
    elif make == "no compare":
        write_script(folder, "OwnPeak", "def other(a, b, args):\n    return '1', ''\n")
    elif make == "unknown name":
        write_plugin_folder(folder, own=("OwnEcho",))
    out = _compare(case, tmp_path / "out", "-c", str(folder), "-alg", f"0,{algorithm}")
    assert out.returncode == 2, out.stdout + out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0] and ("OwnPeak" in lines[0] or str(folder) in lines[0]), lines
    assert not list((tmp_path / "out").glob("result_*.csv"))


def test_the_arrays_and_args_are_the_references(case: Case, tmp_path: Path) -> None:
    """float32 whatever the dump's type, cut to -max, shape type by the reference's rule; the
    stand-in modules are gone from sys.modules afterwards."""
    seen: List[Dict[str, object]] = []

    def record(my: np.ndarray, golden: np.ndarray, args: object) -> object:
        seen.append({"dtypes": (my.dtype, golden.dtype), "sizes": (my.size, golden.size), **vars(args)})
        import cmp_utils  # present while a plug-in runs

        return cmp_utils.utils.format_value(1), ""

    report = opdiff.compare(case.my, case.golden, fusion_rule=case.rule, algorithms=("CosineSimilarity", "Record"),
                            plugins=Plugins.of(algorithms={"Record": record}), max_elements=5,
                            algorithm_options="Record:window=3")
    assert seen and "cmp_utils" not in sys.modules and "algorithm_manager" not in sys.modules
    assert all(entry["dtypes"] == (np.float32, np.float32) for entry in seen)
    assert all(max(entry["sizes"]) <= 5 for entry in seen)  # type: ignore[call-overload]
    assert all(entry["window"] == "3" and str(entry["my_output_dump_file"]).startswith(str(case.my)) for entry in seen)
    compared = [row for row in report.rows if row.compared]
    assert [row.custom_value("Record") for row in compared] == ["1.000000"] * len(compared)


def test_json_report_and_report_rows_carry_plugin_values(case: Case, tmp_path: Path) -> None:
    folder = write_plugin_folder(tmp_path / "plugins", own=("OwnEcho",))
    out = _compare(case, tmp_path / "out", "-c", str(folder), "-alg", "OwnEcho", "--report", "json,html")
    assert out.returncode == 0, out.stderr
    document = json.loads(next((tmp_path / "out").glob("*.json")).read_text())
    echoed = [row["custom"]["OwnEcho"] for row in document["rows"] if row["compared"]]
    assert echoed and all(text.startswith("float32|") for text in echoed)
    assert f"OwnEcho: {echoed[0]}" in next((tmp_path / "out").glob("*.html")).read_text()


def test_folder_travels_in_the_options(case: Case, tmp_path: Path) -> None:
    """A cluster's worker gets the options pickled: the scripts' text goes with them, so the folder
    need not exist where the comparison runs."""
    folder = write_plugin_folder(tmp_path / "plugins", own=("OwnPeak",))
    options = pickle.loads(pickle.dumps(CompareOptions(plugins=folder, algorithms=("OwnPeak",))))
    shutil.rmtree(folder)
    report = opdiff.compare(case.my, case.golden, options, fusion_rule=case.rule)
    assert any(row.custom_value("OwnPeak") not in (None, "NaN") for row in report.rows)


def test_read_plugins_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    with pytest.raises(PluginError, match="no such plug-in folder"):
        read_plugins(tmp_path / "nope")
    write_script(tmp_path / "ok", "A", "def compare(a, b, c):\n    return '1', ''\n")
    (tmp_path / "ok" / "algorithm" / "notes.txt").write_text("ignored, as the reference ignores it")
    assert read_plugins(tmp_path / "ok").algorithm_names == ("A",)


def test_a_slow_plugin_is_waited_for(case: Case, tmp_path: Path) -> None:
    folder = write_plugin_folder(tmp_path / "plugins", own=(), sleep_seconds=0.05)
    report = opdiff.compare(case.my, case.golden, fusion_rule=case.rule, plugins=folder, algorithms=("Sleepy",))
    compared = [row for row in report.rows if row.compared]
    assert compared and all(row.custom_value("Sleepy") == "slept" for row in compared) and report.complete


@pytest.mark.slow
def test_a_plugin_that_takes_10_s(case: Case, tmp_path: Path) -> None:
    """One pair taking 10 s: the run waits, the row has its value, the run completes."""
    folder = write_plugin_folder(tmp_path / "plugins", own=(), sleep_seconds=10)
    start = time.monotonic()
    report = opdiff.compare(case.my, case.golden, fusion_rule=case.rule, plugins=folder, algorithms=("Sleepy",), ids=(1,))
    assert time.monotonic() - start >= 10
    compared = [row for row in report.rows if row.compared]
    assert compared and all(row.custom_value("Sleepy") == "slept" for row in compared) and report.complete


# The crosscheck's tolerance (bench/side_by_side/csv_diff.py): 1e-4 relative, plus one unit of the
# sixth decimal the CSV prints.
def _agree(ours: str, theirs: str) -> bool:
    try:
        a, b = float(ours), float(theirs)
    except ValueError:
        return ours == theirs
    return bool(np.isclose(a, b, rtol=1e-4, atol=1.5e-6, equal_nan=True))


def test_the_references_own_scripts_match_the_builtin_columns(case: Case, tmp_path: Path) -> None:
    if reference_algorithms() is None:
        pytest.skip("mindstudio-probe (the reference) is not installed in /work/venv-ref or /tmp/ref: its scripts are copied at test time")
    folder = write_plugin_folder(tmp_path / "plugins", own=(), reference=True)
    names = [REFERENCE_PREFIX + name for name in ALGORITHMS]
    out = _compare(case, tmp_path / "out", "-c", str(folder), "-alg", ",".join(list(ALGORITHMS) + names))
    assert out.returncode == 0, out.stderr
    rows = _rows(next((tmp_path / "out").glob("result_*.csv")))
    differing = [(row["TensorIndex"], name, row[name], row[REFERENCE_PREFIX + name]) for row in rows for name in ALGORITHMS
                 if not _agree(row[name], row[REFERENCE_PREFIX + name])]
    assert not differing, differing[:10]

"""What a comparison loads: `opdiff compare` of NPU dumps against golden .npy files through an atc
JSON rule reads everything through the core, so it starts without numpy, ml_dtypes, protobuf, the
statistics engine, the many-run machinery or rich's progress bar (about 65 ms of a one-second
compare of 2,000 ops; bench/bench_compare.py case (a)). A module-level import of one of them on that
path fails here, naming the modules that were loaded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.side_by_side_cases import fusion_case

NOT_LOADED = ("numpy", "ml_dtypes", "google.protobuf", "opdiff.engine.statistics_engine", "opdiff.runs.job",
              "rich.progress", "opdiff.graph.om.reader", "opdiff.dumps.writer")

_PROBE = """
import json, sys
import opdiff.cli
watched = tuple(sys.argv[1].split(","))
code = opdiff.cli.main(sys.argv[2:])
inside = tuple(name + "." for name in watched)
print(json.dumps({"code": code, "loaded": sorted(name for name in sys.modules if name in watched or name.startswith(inside))}))
"""


def loaded_by(arguments: list[str], cwd: Path) -> tuple[int, list[str]]:
    """The exit code of `opdiff <arguments>` run in a fresh interpreter, and which of NOT_LOADED it loaded."""
    done = subprocess.run([sys.executable, "-c", _PROBE, ",".join(NOT_LOADED), *arguments], cwd=cwd,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    return result["code"], result["loaded"]


# The case's edge values overflow float16 on purpose (its writer says so).
@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
def test_a_dump_comparison_loads_no_numpy_or_protobuf(tmp_path: Path) -> None:
    case = fusion_case(tmp_path / "case")
    assert case.rule is not None
    code, loaded = loaded_by(["compare", "-m", str(case.my), "-g", str(case.golden), "-f", str(case.rule),
                              "-out", str(tmp_path / "out"), "--no-progress"], tmp_path)
    assert code in (0, 3)
    assert list((tmp_path / "out").glob("result_*.csv"))
    assert loaded == [], f"loaded on the compare path: {loaded}"


def test_the_probe_sees_what_an_om_needs(tmp_path: Path) -> None:
    # The same probe on `opdiff graph` of an .om: protobuf and the .om reader load there, so the
    # empty list above is the compare path's doing, not the probe's.
    from opdiff.graph.model_def_builder import simple_model_def
    from opdiff.graph.om.writer import MODEL_DEF, write_om

    model = write_om(str(tmp_path / "model.om"), [[(MODEL_DEF, simple_model_def().SerializeToString())]])
    code, loaded = loaded_by(["graph", str(model)], tmp_path)
    assert code == 0
    assert {"google.protobuf", "opdiff.graph.om.reader"} <= set(loaded)

"""The atc JSON that opdiff exports (opdiff graph --json, opdiff.graph.write_atc_json) is read by the
reference tool's fusion-rule parser exactly as the original: for both real samples, msaccucmp
compares generated dumps with the original JSON and with the re-exported one, and the rows
(Index, OpType, NPUDump, DataType, TensorIndex) must be the same.

    python bench/crosscheck_exported_json.py      # needs /work/venv-ref-style venv: see side_by_side/reference.py
"""

import csv
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).parent))
sys.path.insert(0, str(pathlib.Path(__file__).parent.parent))  # the tests package's helpers, run from anywhere

from side_by_side.reference import ReferenceTool

import opdiff
from opdiff.graph import write_atc_json
from tests.support.graph_dumps import write_graph_dumps

SAMPLES = sorted((pathlib.Path(__file__).parent.parent / "tests" / "data" / "atc-json").glob("*.json"))


def reference_rows(ref: ReferenceTool, npu: pathlib.Path, golden: pathlib.Path, rule: pathlib.Path, out: pathlib.Path):
    subprocess.run(ref.compare_command(npu, golden, out, rule), env=ref.environment(), capture_output=True, text=True)
    results = sorted(out.glob("result_*.csv"))
    return [row[:4] + [row[8]] for row in csv.reader(results[0].open())][1:] if results else []


def main() -> int:
    ref = ReferenceTool.locate()
    failures = 0
    for sample in SAMPLES:
        with tempfile.TemporaryDirectory() as folder:
            d = pathlib.Path(folder)
            fm = opdiff.read_graph(sample)
            exported = write_atc_json(fm, d / "exported.json")
            case = write_graph_dumps(fm, d / "data")
            original = reference_rows(ref, case.npu, case.golden, sample, d / "original")
            again = reference_rows(ref, case.npu, case.golden, exported, d / "exported")
            same = bool(original) and original == again
            failures += not same
            print(f"{sample.name}: {len(original)} rows with the original JSON, {len(again)} with opdiff's export: "
                  f"{'same rows' if same else 'DIFFERENT'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

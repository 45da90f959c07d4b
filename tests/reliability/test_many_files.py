"""Fault injection (issue 8): `opdiff compare` over an NPU step folder of 100,000 files.

The folder (tests.support.many_files) holds the newest dump of each op of a 2,000-op chain model
(some under mapping.csv names), two older iterations of each holding another op's values, dumps of
ops the model does not have, and junk (core files, temporaries, .partial files, digits-only names
without a mapping). Expected: the run completes, every tensor of the model is a row (compared, or
with its reason), every junk name is a note with a reason, the newest iteration is the one
compared, the other step is not read, all in reasonable time.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.child_env import child_env
from tests.support.many_files import ManyFiles, write_many_files

TOTAL = 100_000
OPS = 2_000
LIMIT_S = 90  # a generous bound for a loaded 2-core machine; about 7 s when idle


SHM = Path("/dev/shm")


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ManyFiles]:
    # In memory where possible: on this project's shared VM disk, unlinking 100k files took
    # minutes. Removed here, not by a later pytest session's clean-up of old temporary folders.
    use_shm = SHM.is_dir() and os.access(SHM, os.W_OK)
    root = Path(tempfile.mkdtemp(prefix="opdiff-many-", dir=SHM)) if use_shm else tmp_path_factory.mktemp("many")
    try:
        yield write_many_files(root, total=TOTAL, ops=OPS)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_compare_over_a_folder_of_100k_files(many: ManyFiles, tmp_path: Path) -> None:
    assert many.files_in_npu == TOTAL and many.foreign_ops > 80_000
    start = time.perf_counter()
    # the {model_id} folder, not the step: the run must find the step folder (the newest step) itself;
    # a level above it would be a tree, every step its own run (docs/many-runs.md)
    run = subprocess.run([sys.executable, "-m", "opdiff", "compare", "-m", str(many.npu.parent), "-g", str(many.golden),
                          "-f", str(many.rule), "-out", str(tmp_path), "--report", "json"],
                         capture_output=True, text=True, env=child_env(COLUMNS="150"), timeout=LIMIT_S * 2)
    seconds = time.perf_counter() - start
    print(f"compare over {many.files_in_npu:,} files: {seconds:.1f} s")
    assert run.returncode == 0, run.stderr[-3000:]
    assert seconds < LIMIT_S
    (result,) = tmp_path.glob("result_*.csv")
    report = json.loads(result.with_suffix(".json").read_text())
    assert report["complete"] and report["my"] == str(many.npu)
    listed = list(csv.DictReader(result.open(newline="")))
    rows = {row["TensorIndex"]: row for row in listed if row["TensorIndex"] != "NaN"}
    undumped = {row["NPUDump"]: row for row in listed if row["TensorIndex"] == "NaN"}  # an op without a dump: one row
    no_golden, no_dump = set(many.no_golden), set(many.no_dump)
    dumped = [name for name in many.chain if name not in no_dump]
    # one row per tensor of every dumped op (input and output), one per op without a dump, one for the Data op
    assert len(listed) == 2 * len(dumped) + len(no_dump) + 1
    assert len(rows) == 2 * len(dumped) and set(undumped) == no_dump | {"input"}
    for k, name in enumerate(many.chain):
        if name in no_dump:
            assert "There is no dump file for my output operator" in undumped[name]["CompareFailReason"]
            continue
        producer = many.chain[k - 1] if k else "input"
        for tensor, partner_missing in ((f"{name}:input:0", producer in no_golden), (f"{name}:output:0", name in no_golden)):
            row = rows[tensor]
            if partner_missing:
                assert row["CosineSimilarity"] == "NaN" and "no the ground truth dump file" in row["CompareFailReason"], row
            else:  # the newest iteration: an older one holds another op's values and would fail
                assert float(row["CosineSimilarity"]) > 0.999 and not row["CompareFailReason"], row
    assert all(rows[f"{name}:output:0"]["CosineSimilarity"] != "NaN" for name in many.hashed if name not in no_golden)
    # every junk name is a note naming the file and the reason; the silent ones (.partial files,
    # mapping.csv, convert_failed_file_list.txt) are not dumps by definition
    counted = [note for note in report["notes"] if ": " not in note]  # dumps left out, counted
    assert counted == [f"{many.foreign_ops} dump file(s) of ops that the fusion rule does not name were not compared",
                       f"{many.older_versions} older dump file(s) of compared ops were not compared (the newest is; --all "
                       "compares every run)"], counted
    noted = {note.split(": ", 1)[0].rsplit("/", 1)[-1]: note.split(": ", 1)[1] for note in report["notes"] if ": " in note}
    assert set(noted) == set(many.junk)
    assert all(reason for reason in noted.values())
    assert sum("digits-only name without a mapping.csv entry" in reason for reason in noted.values()) == sum(name.isdigit() for name in many.junk)

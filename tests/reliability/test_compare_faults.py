"""Faults during `opdiff compare` (issue 8; tests/reliability/test_fault_injection.py covers the
readers, convert and demo): files truncated or removed between indexing and reading, and an
unwritable or full output folder. Expected: a row with its reason for each lost tensor and the rest
compared; a clear error and no half-written result."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, Tuple

import numpy as np
import pytest

import opdiff
from opdiff.cli import main
from opdiff.engine.options import CompareOptions
from opdiff.engine.tensor_engine import Engine
from opdiff.match.planning import plan
from tests.reliability.test_fault_injection import tmpfs, unwrapped

OPS = 12


def two_sides(tmp_path: Path, ops: int = OPS, elements: int = 256) -> Tuple[Path, Path, Dict[str, Path], Dict[str, Path]]:
    """NPU dumps on both sides (NPU vs NPU by op name), one output each."""
    mine, golden = tmp_path / "mine", tmp_path / "golden"
    paths: Tuple[Dict[str, Path], Dict[str, Path]] = ({}, {})
    rng = np.random.default_rng(3)
    for i in range(ops):
        values = rng.standard_normal(elements).astype(np.float32)
        for side, folder, noise in ((0, mine, 1e-4), (1, golden, 0.0)):
            folder.mkdir(exist_ok=True)
            name = f"op{i}"
            paths[side][name] = opdiff.write_dump(folder / f"Add.{name}.{i}.1.{1700000000000000 + i}", name,
                                                  outputs=[values * (1 + noise)])
    return mine, golden, paths[0], paths[1]


def test_files_cut_or_removed_after_indexing_become_rows_with_reasons(tmp_path: Path) -> None:
    mine, golden, my_paths, golden_paths = two_sides(tmp_path)
    _, plans, _, _ = plan(mine, golden)  # indexed: now the files change under the run
    os.truncate(my_paths["op2"], my_paths["op2"].stat().st_size // 2)
    os.truncate(golden_paths["op5"], 10)
    my_paths["op7"].unlink()
    golden_paths["op9"].unlink()
    rows = {row.npu_dump: row for row in Engine(CompareOptions(threads=2)).rows(plans)}
    assert len(rows) == OPS
    broken = {"op2": my_paths["op2"], "op5": golden_paths["op5"], "op7": my_paths["op7"], "op9": golden_paths["op9"]}
    for name, row in rows.items():
        if name in broken:
            assert not row.compared and any(str(broken[name]) in reason for reason in row.reasons), (name, row.reasons)
        else:
            assert row.compared and row.metrics.cosine_similarity > 0.9999, name


@pytest.mark.cli_output
def test_compare_into_a_read_only_folder_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    mine, golden, _, _ = two_sides(tmp_path)
    with tmpfs(tmp_path / "ro", "ro,size=1m") as read_only:
        for out in (read_only, read_only / "sub"):
            status = main(["compare", "-m", str(mine), "-g", str(golden), "-out", str(out)])
            err = unwrapped(capsys.readouterr().err)
            assert status == 2 and "Read-only file system" in err, err
        assert not list(read_only.iterdir())


@pytest.mark.cli_output
def test_compare_into_a_full_folder_leaves_no_half_written_result(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    mine, golden, _, _ = two_sides(tmp_path, ops=400, elements=16)  # ~400 rows of ~250 bytes: more than 64 KB
    with tmpfs(tmp_path / "full", "size=64k") as full:
        status = main(["compare", "-m", str(mine), "-g", str(golden), "-out", str(full)])
        err = unwrapped(capsys.readouterr().err)
        assert status == 2 and "No space left on device" in err, err
        left = sorted(p.name for p in full.iterdir())
        assert not [name for name in left if name.endswith(".partial")], left  # no temporary left behind
        for name in left:  # whatever result is there is whole: every row of the run
            assert name.startswith("result_") and len((full / name).read_text().splitlines()) == 401

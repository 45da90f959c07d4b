"""The engine opens NPU dumps ahead of time on the core's pool (``_core.FileOpening``): outcomes
come back in path order, a file that cannot be opened says why in DumpFormatError's words, and the
engine turns that into the row the reference would print."""

from __future__ import annotations

from pathlib import Path
from typing import List

import numpy as np
import pytest

import opdiff
from opdiff import _core
from opdiff.dumps import DumpFormatError
from opdiff.engine import tensor_engine as engine
from opdiff.engine.options import CompareOptions
from opdiff.engine.tensor_engine import Engine
from opdiff.match.planning import plan
from tests.compare.test_engine_scheduling import npu_sides

TS = 1700000000000000


def test_files_come_back_in_order_with_the_readers_errors(tmp_path: Path) -> None:
    paths: List[str] = []
    for k in range(40):
        path = tmp_path / f"Add.add{k}.{k}.1.{TS + k}"
        opdiff.write_dump(path, f"add{k}", outputs=[np.full(k + 1, k, np.float32)])
        paths.append(str(path))
    broken = tmp_path / "Add.broken.99.1.1700000000000099"
    broken.write_bytes(b"\x01\x02 not a dump")
    missing = str(tmp_path / "Add.missing.98.1.1700000000000098")
    paths[7:7] = [str(broken), missing]
    opened = _core.FileOpening(paths).wait()
    assert len(opened) == len(paths)
    for path, outcome in zip(paths, opened):
        if path in (str(broken), missing):
            assert outcome.file is None
            with pytest.raises(DumpFormatError) as raised:
                opdiff.read_dump(path)
            assert outcome.error == str(raised.value)  # the same words as reading it directly
        else:
            assert outcome.file is not None and outcome.error == ""
            assert outcome.file.path == path
            assert opdiff.read_dump(path).outputs[0].shape == outcome.file.tensors[0].shape


def test_an_unreadable_dump_is_a_row_that_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine, golden = npu_sides(tmp_path, ops=40, elements=1 << 10)
    victim = sorted(mine.iterdir())[21]
    _, plans, _, _ = plan(mine, golden)
    victim.write_bytes(b"garbage after planning")
    monkeypatch.setattr(engine, "PLANS_PER_OPENING", 3)  # many openings, several in flight
    rows = list(Engine(CompareOptions(threads=2)).rows(plans))
    bad = [row for row in rows if row.reasons and str(victim) in row.reasons[0]]
    (plan_of_victim,) = [p for p in plans if p.my_path == str(victim)]
    assert len(bad) == 1 and bad[0].reasons[0].startswith(f"[{plan_of_victim.label}] {victim}: ")
    assert [row.index for row in rows] == sorted(row.index for row in rows)
    assert sum(row.metrics is not None for row in rows) == 2 * 39 - 1  # op4's output counts differ


def test_rows_do_not_depend_on_how_many_dumps_open_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine, golden = npu_sides(tmp_path, ops=30, elements=1 << 11)
    _, plans, _, _ = plan(mine, golden)
    expected = list(Engine(CompareOptions(threads=1)).rows(plans))
    for per_opening, ahead in ((1, 1), (4, 2), (64, 3)):
        monkeypatch.setattr(engine, "PLANS_PER_OPENING", per_opening)
        monkeypatch.setattr(engine, "OPENINGS_AHEAD", ahead)
        assert list(Engine(CompareOptions(threads=2)).rows(plans)) == expected


def test_a_consumer_that_stops_early_cancels_the_openings_ahead(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine, golden = npu_sides(tmp_path, ops=24, elements=1 << 10)
    monkeypatch.setattr(engine, "PLANS_PER_OPENING", 2)
    _, plans, _, _ = plan(mine, golden)
    rows = Engine(CompareOptions(threads=2)).rows(plans)
    first = next(rows)
    rows.close()  # the openings ahead are cancelled and drained here
    assert first.index == plans[0].index
    assert _core.FileOpening([plans[0].my_path or ""]).wait()[0].file is not None  # the pool is free

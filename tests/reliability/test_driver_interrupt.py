"""The one driver (engine/driver.py) both result families run through: Ctrl-C keeps the rows so far
under ``{stem}.incomplete.csv`` and marks the report incomplete; any other error leaves no file.
The interrupt is raised from inside the family's engine, after its first row, so the outcome does
not depend on timing (test_compare_interrupt.py sends a real SIGINT to the CLI)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Iterator, Type

import numpy as np
import pytest

import opdiff
from opdiff.demo.statistics_network import write_statistics_case
from opdiff.dumps import Tensor
from opdiff.engine.statistics_engine import StatisticsEngine
from opdiff.engine.tensor_engine import Engine
from opdiff.results.statistics_report import StatisticsReport

TS = 1700000000000000


def _stop_after_first_row(engine: type, error: Type[BaseException], monkeypatch: pytest.MonkeyPatch) -> None:
    """`engine.rows` yields its first row, then raises `error`, as Ctrl-C would mid-run."""
    original = engine.rows

    def rows(self: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        produced = original(self, *args, **kwargs)
        yield next(iter(produced))
        raise error()

    monkeypatch.setattr(engine, "rows", rows)


def _tensor_pair(folder: Path, ops: int) -> tuple:
    a, b = folder / "a", folder / "b"
    data = np.arange(64, dtype=np.float32)
    for side in (a, b):
        side.mkdir(parents=True)
        for i in range(ops):
            opdiff.write_dump(side / f"Op.op{i}.{i}.1.{TS + i}", f"op{i}", outputs=[Tensor(data)])
    return a, b


def _csv_rows(path: Path) -> list:
    return list(csv.reader(path.read_text().splitlines()))[1:]


def test_ctrl_c_in_a_statistics_compare_keeps_an_incomplete_csv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = write_statistics_case(tmp_path / "case", layout="ND", dtype="float32")
    _stop_after_first_row(StatisticsEngine, KeyboardInterrupt, monkeypatch)
    (tmp_path / "out").mkdir()
    report = opdiff.compare(case.npu, case.npu, csv=tmp_path / "out" / "result.csv")
    assert isinstance(report, StatisticsReport) and not report.complete and len(report.rows) == 1
    assert report.csv_path is not None and report.csv_path.name == "result.incomplete.csv"
    assert len(_csv_rows(report.csv_path)) == 1
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == ["result.incomplete.csv"]


def test_ctrl_c_in_a_tensor_compare_keeps_an_incomplete_csv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = _tensor_pair(tmp_path, ops=4)
    _stop_after_first_row(Engine, KeyboardInterrupt, monkeypatch)
    (tmp_path / "out").mkdir()
    report = opdiff.compare(a, b, csv=tmp_path / "out" / "result.csv")
    assert not report.complete and len(report.rows) == 1
    assert report.csv_path is not None and report.csv_path.name == "result.incomplete.csv"
    assert len(_csv_rows(report.csv_path)) == 1
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == ["result.incomplete.csv"]


@pytest.mark.parametrize("family", ["tensor", "statistics"])
def test_another_error_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, family: str) -> None:
    if family == "tensor":
        a, b = _tensor_pair(tmp_path, ops=4)
        _stop_after_first_row(Engine, RuntimeError, monkeypatch)
    else:
        case = write_statistics_case(tmp_path / "case", layout="ND", dtype="float32")
        a = b = case.npu
        _stop_after_first_row(StatisticsEngine, RuntimeError, monkeypatch)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(RuntimeError):
        opdiff.compare(a, b, csv=out / "result.csv")
    assert list(out.iterdir()) == []

"""The engine's one scheduler: the pairs of many ops go to the core's pool in batches. Rows come out
in plan order and identical whatever the thread count, the batch boundaries or other comparisons
running at the same time; a consumer that stops early leaves nothing running."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import List, Tuple

import numpy as np
import pytest

import opdiff
from opdiff.dumps import Tensor
from opdiff.engine import tensor_engine as engine
from opdiff.engine.options import CompareOptions
from opdiff.engine.tensor_engine import Engine
from opdiff.match.planning import plan
from opdiff.results.rows import CompareRow

TS = 1700000000000000


def npu_sides(tmp_path: Path, ops: int, elements: int) -> Tuple[Path, Path]:
    """NPU dumps on both sides (matched by op name): one input and one output each, some NC1HWC0, some
    op with a partner that cannot be compared (different element counts)."""
    mine, golden = tmp_path / "mine", tmp_path / "golden"
    mine.mkdir()
    golden.mkdir()
    rng = np.random.default_rng(5)
    for i in range(ops):
        x = rng.standard_normal((1, 20, 4, elements // 80)).astype(np.float32)
        layout = "NC1HWC0" if i % 3 == 0 else "ND"
        for folder, noise in ((mine, 1e-3), (golden, 0.0)):
            y = x * (1 + noise * rng.standard_normal(x.shape).astype(np.float32))
            out = y[:, :, :, :-1] if (i == 4 and folder is golden) else y  # op4: counts differ
            opdiff.write_dump(folder / f"Conv.op{i}.{i}.1.{TS + i}", f"op{i}",
                              inputs=[Tensor(y, layout=layout, dtype="float16")], outputs=[Tensor(out, dtype="float32")])
    return mine, golden


def rows_at(mine: Path, golden: Path, threads: int) -> List[CompareRow]:
    _, plans, _, _ = plan(mine, golden)
    return list(Engine(CompareOptions(threads=threads)).rows(plans))


def test_rows_are_identical_at_1_2_and_7_threads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine, golden = npu_sides(tmp_path, ops=24, elements=1 << 14)
    monkeypatch.setattr(engine, "PAIRS_PER_BATCH", 5)  # several batches, boundaries inside ops' pairs
    one = rows_at(mine, golden, 1)
    assert [row.index for row in one] == sorted(row.index for row in one)  # plan (Index) order
    assert any(not row.compared for row in one) and sum(row.compared for row in one) >= 40
    for threads in (2, 7):
        assert rows_at(mine, golden, threads) == one, threads


def test_one_big_pair_splits_over_the_threads_with_the_same_result(tmp_path: Path) -> None:
    """Fewer pairs than threads: the pair's chunks run in a batch nested in the pair's batch."""
    mine, golden = npu_sides(tmp_path, ops=1, elements=1 << 20)
    assert rows_at(mine, golden, 4) == rows_at(mine, golden, 1)


def test_comparisons_in_two_threads_at_once_agree_with_one_alone(tmp_path: Path) -> None:
    mine, golden = npu_sides(tmp_path, ops=12, elements=1 << 14)
    alone = rows_at(mine, golden, 2)
    results: List[List[CompareRow]] = [[], []]

    def run(k: int) -> None:
        results[k] = rows_at(mine, golden, 2)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [alone, alone]


def test_a_consumer_that_stops_early_cancels_the_started_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine, golden = npu_sides(tmp_path, ops=12, elements=1 << 14)
    monkeypatch.setattr(engine, "PAIRS_PER_BATCH", 2)
    _, plans, _, _ = plan(mine, golden)
    done: List[str] = []
    rows = Engine(CompareOptions(threads=2)).rows(plans, on_plan_done=lambda p, _: done.append(p.op_name))
    first = next(rows)
    rows.close()  # the next batch was started already: cancelled and drained here
    assert first.index == plans[0].index and done == [plans[0].op_name]
    assert rows_at(mine, golden, 2)[0] == first  # the pool is free for the next comparison


def test_a_batch_without_its_file_cache_is_refused(tmp_path: Path) -> None:
    import opdiff._core as _core

    mine, _ = npu_sides(tmp_path, ops=1, elements=1 << 10)
    (path,) = mine.iterdir()
    request = _core.PairRequest(_core.open_tensor_file(str(path)), _core.TensorRole.output, 0, str(path),
                                _core.TensorRole.output, 0)
    with pytest.raises(ValueError, match="file cache"):
        _core.PairBatch([request], None)  # type: ignore[arg-type]
    (outcome,) = _core.PairBatch([request], _core.TensorFileCache()).wait()
    assert outcome.status is _core.PairStatus.compared and outcome.metrics is not None and outcome.metrics.count == 20 * 4 * (1024 // 80)

"""A Ctrl-C that lands while a run's files are written and entered in the summary waits for both:
a stopped job never leaves a run's CSV that its summary does not list."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Dict, List

from opdiff.engine.options import CompareOptions
from opdiff.results.runs_summary import RunStatus
from opdiff.runs import RunsRequest, compare_runs
from opdiff.runs.job import FinishedRun
from tests.support.dump_tree import write_dump_tree
from tests.support.many_runs import by_run, half_written


def test_a_ctrl_c_after_a_runs_csv_is_written_still_enters_the_run(tmp_path: Path) -> None:
    tree = write_dump_tree(tmp_path / "tree", devices=(0,), steps=(0, 1, 2))
    out = tmp_path / "out"
    finished: List[str] = []

    def interrupt_after_the_csv(run: FinishedRun) -> Dict[str, Path]:
        finished.append(run.label)
        assert run.csv.exists()  # placed under its name, not yet in the summary
        signal.raise_signal(signal.SIGINT)  # a real SIGINT, as Ctrl-C sends
        return {}

    summary = compare_runs(RunsRequest(str(tree.root), str(tree.golden), CompareOptions(fusion_rule=tree.rule)), out,
                           per_run=interrupt_after_the_csv)
    assert finished == ["0_demo_net_0"]  # the job stopped after the first run
    assert summary.complete is False
    compared = [entry.label for entry in summary.runs if entry.status is RunStatus.COMPARED]
    assert compared == finished == sorted(by_run(out))
    assert half_written(out) == []

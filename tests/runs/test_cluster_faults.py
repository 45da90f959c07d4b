"""Faults mid-job on a real Dask cluster on 127.0.0.1 (a scheduler and two worker processes, each
in its own host folder): the scheduler killed, and a real SIGINT to the CLI client. Each stops the
job after its first run's CSV is written; where the job was quicker than the stop, the tree grows
(more steps) and the test runs again, so no outcome depends on the machine's speed."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import pytest

pytest.importorskip("distributed")

from opdiff.commands.exit_codes import ExitCode
from tests.support.dump_tree import DumpTree, write_dump_tree
from tests.support.local_cluster import LocalCluster, local_cluster
from tests.support.many_runs import (
    CLIENT_TIMEOUT,
    by_run,
    client_folder,
    compared_locally,
    half_written,
    host_folders,
    opdiff_cli,
    summary_of,
    wait_for_first_csv,
)

pytestmark = pytest.mark.cluster
STEPS = (4, 16, 64)  # steps per device, tried in turn until the stop lands before the job's end
LOST_AFTER = 20.0  # seconds: the client must give up on a killed scheduler within this
CLEAN_TIMEOUT = 60.0  # seconds for a cancelled job's tasks to leave the scheduler and the workers


@dataclass
class Stopped:
    tree: DumpTree
    address: str  # the scheduler's
    client: Path
    out: Path
    local: Dict[str, bytes]  # each run's CSV compared on this machine
    returncode: int
    stdout: str
    stderr: str
    seconds: float  # from the stop to the client's exit


def _stop_mid_job(base: Path, stop: Callable[[LocalCluster, subprocess.Popen[str]], None],
                  then: Callable[[LocalCluster, Stopped], None]) -> Stopped:
    """Start a job on a fresh cluster, `stop` it after its first CSV, and hand the cluster to `then`;
    grow the tree until the stop landed mid-job (some runs without a CSV)."""
    for steps in STEPS:
        folder = base / f"steps{steps}"
        tree = write_dump_tree(folder / "all", devices=(0, 1), steps=tuple(range(steps)))
        hosts, client = host_folders(tree, folder), client_folder(tree, folder)
        out = client / "out"
        with local_cluster(folder / "cluster", hosts) as cluster:
            process = subprocess.Popen(
                [sys.executable, "-m", "opdiff", "compare", "-m", tree.root.name, "-g", "golden", "-f", tree.rule.name,
                 "--scheduler", cluster.address, "--lost-after", str(LOST_AFTER), "-out", str(out)],
                cwd=client, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            wait_for_first_csv(out, process)
            stop(cluster, process)
            stopped_at = time.monotonic()
            stdout, stderr = process.communicate(timeout=CLIENT_TIMEOUT)
            seconds = time.monotonic() - stopped_at
            if len(by_run(out)) == len(tree.devices) * steps:
                continue  # every run finished before the stop landed: more work
            stopped = Stopped(tree, cluster.address, client, out, {}, process.returncode, stdout, stderr, seconds)
            then(cluster, stopped)
        stopped.local = compared_locally(tree, folder / "local")
        return stopped
    pytest.fail(f"every job finished before it could be stopped, up to {STEPS[-1]} steps per device")


def _kill_scheduler(cluster: LocalCluster, process: subprocess.Popen[str]) -> None:
    cluster.scheduler.kill()


def _sigint(cluster: LocalCluster, process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGINT)


def _nothing(cluster: LocalCluster, stopped: Stopped) -> None:
    pass


def _runs(summary: Dict[str, object]) -> Tuple[List[str], Dict[str, str]]:
    """The labels of the runs compared, and the reason of each run not compared."""
    runs = summary["runs"]
    assert isinstance(runs, list)
    label = "{device}_{model}_{step}".format
    compared = [label(**run) for run in runs if run["status"] == "compared"]
    return compared, {label(**run): run["reason"] for run in runs if run["status"] != "compared"}


def _assert_kept_only_finished_runs(stopped: Stopped, end: str) -> None:
    """Every CSV written is its run's whole CSV, each run without one is in the summary, marked
    incomplete, and nothing is half-written."""
    written = by_run(stopped.out)
    assert written and all(stopped.local[label] == data for label, data in written.items())
    summary = summary_of(stopped.out)
    compared, not_compared = _runs(summary)
    assert sorted(compared) == sorted(written) and len(compared) + len(not_compared) == len(stopped.local)
    assert summary["complete"] is False and summary["end"] == end
    assert sorted(summary["missing"]) == sorted(not_compared)
    assert half_written(stopped.out) == []
    assert "Traceback" not in stopped.stderr + stopped.stdout, stopped.stderr


def test_a_scheduler_killed_mid_run_ends_the_job_as_lost_within_lost_after(tmp_path: Path) -> None:
    stopped = _stop_mid_job(tmp_path, _kill_scheduler, _nothing)
    assert stopped.returncode == ExitCode.CLUSTER_LOST, stopped.stderr + stopped.stdout
    assert stopped.seconds < LOST_AFTER, f"the client took {stopped.seconds:.1f} s to give up on a killed scheduler"
    _assert_kept_only_finished_runs(stopped, "cluster lost")
    _, not_compared = _runs(summary_of(stopped.out))
    assert set(not_compared.values()) == {f"the scheduler at {stopped.address} was lost"}


def _workers_left_clean(cluster: LocalCluster, stopped: Stopped) -> None:
    """The scheduler and every worker hold no task or result of the interrupted job (a run a worker
    had started finishes first), and the next client's job is whole."""
    from distributed import Client

    with Client(cluster.address, timeout=CLIENT_TIMEOUT, set_as_default=False) as client:
        deadline = time.monotonic() + CLEAN_TIMEOUT
        while True:
            on_scheduler = client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))
            on_workers = client.run(lambda dask_worker: len(dask_worker.state.tasks) + len(dask_worker.data))
            if on_scheduler == 0 and not any(on_workers.values()):
                break
            assert time.monotonic() < deadline, f"tasks left: scheduler {on_scheduler}, workers {on_workers}"
            time.sleep(0.1)
    again = opdiff_cli(stopped.client, "compare", "-m", stopped.tree.root.name, "-g", "golden", "-f",
                       stopped.tree.rule.name, "--scheduler", cluster.address, "-out", "again")
    assert again.returncode == ExitCode.OK, again.stderr + again.stdout


def test_sigint_to_a_cluster_client_keeps_the_finished_runs_and_leaves_the_workers_clean(tmp_path: Path) -> None:
    stopped = _stop_mid_job(tmp_path, _sigint, _workers_left_clean)
    assert stopped.returncode == ExitCode.INTERRUPTED, stopped.stderr + stopped.stdout
    _assert_kept_only_finished_runs(stopped, "interrupted")
    assert by_run(stopped.client / "again") == stopped.local  # the next client's job, whole

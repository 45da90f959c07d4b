"""What runs on a cluster worker: its view of ``-m``/``-g`` (paths as it spells them, under its
roots) and the comparison of one run. Workers need only ``opdiff[cluster]`` of the client's version."""

from __future__ import annotations

import os
import pickle
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from opdiff.runs.plan import SideViews
from opdiff.runs.roots import Roots
from opdiff.runs.task import RunOutcome, RunTask, compare_run, view_sides
from opdiff.runs.tree import SideView

# Test-only switch: a worker with this variable set to N exits (as if killed) when it starts its
# (N+1)-th run, once the client holds the results of the N before (so that which runs are lost does
# not depend on timing), so that the loss of a worker mid-job can be tested deterministically.
EXIT_AFTER_RUNS_VARIABLE = "OPDIFF_TEST_EXIT_AFTER_RUNS"
_RUN_COUNTER = "opdiff-test-runs-started"
DELIVERY_WAIT_SECONDS = 10.0


@dataclass(frozen=True)
class WorkerReply:
    views: SideViews
    version: str
    threads: int


def worker_views(my: str, golden: str, step: Optional[int], client_version: str, dask_worker: Any) -> WorkerReply:
    """This worker's view of both sides; a client of another opdiff version sees nothing here.
    (`Client.run` passes the Worker as `dask_worker`.)"""
    from opdiff import __version__

    threads = int(dask_worker.state.nthreads)
    if client_version != __version__:
        refused = SideView(my, error=f"opdiff {__version__} on this worker, {client_version} on the client")
        return WorkerReply(SideViews(refused, SideView(golden, error=refused.error)), __version__, threads)
    return WorkerReply(SideViews(*view_sides(my, golden, step, Roots.of_process())), __version__, threads)


def worker_compare(task: RunTask) -> bytes:
    """Compare one run with the folders this worker sees; the outcome travels packed (pack_outcome)."""
    from distributed import get_worker

    worker = get_worker()
    _exit_when_told(worker)
    return pack_outcome(compare_run(task, worker.address, Roots.of_process()))


def pack_outcome(outcome: RunOutcome) -> bytes:
    """The outcome pickled and deflated: a Report's rows shrink about 5x (repeated field names,
    op names), which keeps what travels back far below the dump bytes."""
    return zlib.compress(pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL))


def unpack_outcome(packed: bytes) -> RunOutcome:
    outcome = pickle.loads(zlib.decompress(packed))
    if not isinstance(outcome, RunOutcome):
        raise TypeError(f"a worker sent {type(outcome).__name__}, not a RunOutcome")
    return outcome


def _exit_when_told(worker: Any) -> None:
    limit = os.environ.get(EXIT_AFTER_RUNS_VARIABLE)
    if not limit:
        return
    counter = Path(worker.local_directory) / _RUN_COUNTER
    started = int(counter.read_text()) if counter.exists() else 0
    if started >= int(limit):
        deadline = time.monotonic() + DELIVERY_WAIT_SECONDS
        while len(worker.data) and time.monotonic() < deadline:  # results the client has not fetched yet
            time.sleep(0.05)
        os._exit(70)  # no cleanup, as a killed process
    counter.write_text(str(started + 1))

"""The cluster executor: the plan's runs on an existing Dask distributed cluster, each on a worker
that sees both of its sides (there is no shared file system). Only the reports come back; the client
writes every file.

A run may go to every worker that sees its files, and the scheduler moves it when its worker dies.
When no worker that sees them is left, the run is reported as not compared within `lost_after`
seconds (a task restricted to dead workers would otherwise wait forever). A scheduler whose
connection closes ends the job at once as a lost cluster (Dask's client drops every future with
it), and so does one that stops answering for `lost_after` seconds.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from concurrent.futures import CancelledError
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Set

from opdiff.results.runs_summary import JobEnd
from opdiff.runs.executor import Execution, OnOutcome
from opdiff.runs.local import INTERRUPTED
from opdiff.runs.plan import SideViews
from opdiff.runs.reach import connect_failure, unreachable_reason
from opdiff.runs.task import RunOutcome, RunTask
from opdiff.runs.tree import SideView
from opdiff.runs.worker import WorkerReply, unpack_outcome, worker_compare, worker_views

if TYPE_CHECKING:
    from distributed import Client, Future
    from distributed.security import Security

POLL_SECONDS = 0.2
# the reason distributed gives the futures it cancels when the client loses its scheduler
SCHEDULER_CONNECTION_LOST = "scheduler-connection-lost"
WORKERS_EVERY_SECONDS = 1.0


class ClusterError(Exception):
    """The scheduler cannot be reached (refused, no route, a certificate it does not accept)."""


class ClusterExecutor:
    def __init__(self, address: str, security: Optional[Security] = None, *, connect_timeout: float = 10.0,
                 lost_after: float = 10.0) -> None:
        from distributed import Client

        self.address = address
        self.lost_after = lost_after
        self.warnings: List[str] = []
        unreachable = unreachable_reason(address, connect_timeout)
        if unreachable is not None:
            raise ClusterError(f"cannot connect to the scheduler at {address}: {unreachable}")
        try:
            self.client: Client = Client(  # type: ignore[no-untyped-call]
                address, security=security, timeout=connect_timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:  # ValueError: an address Dask cannot parse
            raise ClusterError(f"cannot connect to the scheduler at {address}: {connect_failure(address, error, security)}") from None

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing a client whose scheduler is gone may raise anything
            self.client.close(timeout=5)  # type: ignore[no-untyped-call]

    def __enter__(self) -> ClusterExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def views(self, my: str, golden: str, step: Optional[int]) -> Dict[str, SideViews]:
        from opdiff import __version__

        try:
            if not self.client.scheduler_info(n_workers=-1)["workers"]:
                raise ClusterError(f"the scheduler at {self.address} has no workers")
            replies: Dict[str, object] = self.client.run(worker_views, my, golden, step, __version__, on_error="return")
        except (OSError, TimeoutError) as error:
            raise ClusterError(f"{self._lost_reason()} ({connect_failure(self.address, error)})") from None
        views: Dict[str, SideViews] = {}
        for address, reply in replies.items():
            if isinstance(reply, WorkerReply):
                views[address] = reply.views
                if reply.threads > 1:
                    self.warnings.append(f"worker {address} runs {reply.threads} threads: as many runs at once, each "
                                         "using every core and its own memory (start workers with --nthreads 1)")
            else:
                failed = SideView(my, error=f"{address}: {reply}")
                views[address] = SideViews(failed, SideView(golden, error=failed.error))
        return views

    def execute(self, tasks: Sequence[RunTask], on_outcome: OnOutcome) -> Execution:
        pending: Dict[Future[bytes], RunTask] = {}
        try:
            for task in tasks:
                future = self.client.submit(worker_compare, task, workers=[place.location for place in task.run.places],
                                            allow_other_workers=False, pure=False,
                                            key=f"opdiff-run-{task.key.label}-{uuid.uuid4().hex[:12]}")
                pending[future] = task
            return self._collect(pending, on_outcome)
        except KeyboardInterrupt:
            self._cancel(pending)
            return Execution(JobEnd.INTERRUPTED, INTERRUPTED)

    def _collect(self, pending: Dict[Future[bytes], RunTask], on_outcome: OnOutcome) -> Execution:
        stranded: Dict[Future[bytes], float] = {}
        unreachable_since: Optional[float] = None
        checked = 0.0
        while pending:
            done = [future for future in pending if future.done()]  # type: ignore[no-untyped-call]
            for future in done:
                try:
                    outcome = self._outcome(future, pending[future])
                except (OSError, TimeoutError):  # its result could not be fetched: the scheduler went
                    outcome = None
                if outcome is None:  # the client dropped every future with the scheduler's connection
                    self._cancel(pending)
                    return Execution(JobEnd.CLUSTER_LOST, self._lost_reason())
                del pending[future]
                stranded.pop(future, None)
                on_outcome(outcome)
            now = time.monotonic()
            if not done and now - checked >= WORKERS_EVERY_SECONDS:
                checked = now
                live = self._live_workers()
                if live is None:
                    unreachable_since = unreachable_since or now
                    if now - unreachable_since > self.lost_after:
                        self._cancel(pending)
                        return Execution(JobEnd.CLUSTER_LOST, self._lost_reason())
                    continue
                unreachable_since = None
                self._report_stranded(pending, stranded, live, now, on_outcome)
            if not done:
                time.sleep(POLL_SECONDS)
        return Execution()

    def _report_stranded(self, pending: Dict[Future[bytes], RunTask], stranded: Dict[Future[bytes], float],
                         live: Set[str], now: float, on_outcome: OnOutcome) -> None:
        """Report as lost each run no live worker has seen its files for `lost_after` seconds."""
        for future, task in list(pending.items()):
            if {place.location for place in task.run.places} & live:
                stranded.pop(future, None)
                continue
            if now - stranded.setdefault(future, now) > self.lost_after:
                self._cancel({future: task})
                del pending[future]
                on_outcome(RunOutcome(task.key, ", ".join(place.location for place in task.run.places),
                                      reason="its worker was lost before the run finished, and no other "
                                             "worker sees its files", lost=True))

    def _lost_reason(self) -> str:
        return f"the scheduler at {self.address} was lost"

    def _outcome(self, future: Future[bytes], task: RunTask) -> Optional[RunOutcome]:
        """The run's outcome; None when the client lost the scheduler (and with it every future)."""
        if future.status == "cancelled" and self.client.status != "running":
            return None
        try:
            if future.status in ("finished", "cancelled"):
                return unpack_outcome(future.result())  # a cancelled future raises its CancelledError, with the reason
            if future.status == "error":
                error = future.exception()  # type: ignore[no-untyped-call]
                lost = type(error).__name__ == "KilledWorker"
                reason = "workers died running it (the scheduler gave up on it)" if lost else f"failed on the worker: {error!r}"
                return RunOutcome(task.key, reason=reason, lost=lost)
        except CancelledError as error:  # cancelled, perhaps between reading its status and fetching its result
            if getattr(error, "reason", "") == SCHEDULER_CONNECTION_LOST or self.client.status != "running":
                return None
            return RunOutcome(task.key, reason=f"the cluster cancelled it ({error})", lost=True)
        return RunOutcome(task.key, reason=f"the cluster dropped it ({future.status})", lost=True)

    def _live_workers(self) -> Optional[Set[str]]:
        if self.client.status != "running":
            return None
        try:
            return set(self.client.scheduler_info(n_workers=-1)["workers"])
        except (OSError, TimeoutError):
            return None

    def _cancel(self, pending: Dict[Future[bytes], RunTask]) -> None:
        if not pending:
            return
        with contextlib.suppress(Exception):  # the scheduler may be gone: nothing is left to cancel then
            self.client.cancel(list(pending), force=True)  # type: ignore[no-untyped-call]

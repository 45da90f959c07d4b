"""A Dask cluster on 127.0.0.1 for the tests and the benchmark: a real ``dask scheduler`` process
and ``dask worker`` processes, each worker in its own working folder (a host's local disk), all
stopped on exit. Every wait is bounded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, List, Mapping, Optional, Sequence

from tests.support.tls_certificates import TlsFiles

START_TIMEOUT = 90.0
STOP_TIMEOUT = 15.0


@dataclass
class LocalCluster:
    address: str
    scheduler: subprocess.Popen[bytes]
    workers: List[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: List[Path] = field(default_factory=list)

    def stop(self) -> None:
        """The workers first, then the scheduler: a worker told to stop while its scheduler closes
        may hang in Dask's own close (seen: 15 s, until killed)."""
        for group in (self.workers, [self.scheduler]):
            for process in group:
                if process.poll() is None:
                    process.terminate()
            for process in group:
                try:
                    process.wait(timeout=STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=STOP_TIMEOUT)

    def log_text(self) -> str:
        return "\n".join(f"--- {log.name}\n{log.read_text(errors='replace')[-4000:]}" for log in self.logs if log.exists())


def _tls_flags(tls: Optional[TlsFiles]) -> List[str]:
    if tls is None:
        return []
    return ["--tls-ca-file", str(tls.ca), "--tls-cert", str(tls.cert), "--tls-key", str(tls.key)]


def _dask(command: str) -> List[str]:
    module = {"scheduler": "distributed.cli.dask_scheduler", "worker": "distributed.cli.dask_worker"}[command]
    return [sys.executable, "-m", module]


@contextmanager
def local_cluster(base: Path, worker_folders: Sequence[Path], *, tls: Optional[TlsFiles] = None,
                  worker_env: Optional[Mapping[int, Mapping[str, str]]] = None,
                  client_tls: Optional[TlsFiles] = None) -> Iterator[LocalCluster]:
    """Start a scheduler and one worker per folder (``--nthreads 1``, no nanny: a worker that dies
    stays dead); yield once every worker has joined. `worker_env` adds variables per worker index."""
    base.mkdir(parents=True, exist_ok=True)
    scheduler_file = base / "scheduler.json"
    protocol = ["--protocol", "tls"] if tls is not None else []
    log = base / "scheduler.log"
    with open(log, "wb") as handle:
        scheduler = subprocess.Popen([*_dask("scheduler"), "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                      "--scheduler-file", str(scheduler_file), *protocol, *_tls_flags(tls)],
                                     cwd=base, stdout=handle, stderr=subprocess.STDOUT)
    cluster = LocalCluster("", scheduler, logs=[log])
    try:
        cluster.address = _wait_for_address(scheduler_file, scheduler)
        for number, folder in enumerate(worker_folders):
            # A worker's roots are its working folder unless the test says otherwise.
            env = {name: value for name, value in os.environ.items() if name != "OPDIFF_ROOTS"}
            env.update((worker_env or {}).get(number, {}))
            worker_log = base / f"worker-{number}.log"
            with open(worker_log, "wb") as handle:
                cluster.workers.append(subprocess.Popen(
                    [*_dask("worker"), cluster.address, "--host", "127.0.0.1", "--nthreads", "1", "--nworkers", "1",
                     "--no-nanny", "--no-dashboard", "--name", f"w{number}", "--local-directory",
                     str(base / f"scratch-{number}"), *_tls_flags(tls)],
                    cwd=folder, env=env, stdout=handle, stderr=subprocess.STDOUT))
            cluster.logs.append(worker_log)
        _wait_for_workers(cluster, len(worker_folders), client_tls or tls)
        yield cluster
    finally:
        cluster.stop()


def _wait_for_address(scheduler_file: Path, scheduler: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if scheduler.poll() is not None:
            raise RuntimeError("the dask scheduler exited at start")
        if scheduler_file.exists():
            try:
                return str(json.loads(scheduler_file.read_text())["address"])
            except (ValueError, KeyError):
                pass  # written but not yet whole
        time.sleep(0.1)
    raise TimeoutError("the dask scheduler did not start in time")


def _wait_for_workers(cluster: LocalCluster, count: int, tls: Optional[TlsFiles]) -> None:
    from distributed import Client
    from distributed.security import Security

    # distributed's Security and Client carry no annotations
    security = None if tls is None else Security(tls_ca_file=str(tls.ca), tls_client_cert=str(tls.cert),  # type: ignore[no-untyped-call]
                                                 tls_client_key=str(tls.key), require_encryption=True)
    with Client(cluster.address, security=security, timeout=START_TIMEOUT, set_as_default=False) as client:  # type: ignore[no-untyped-call]
        client.wait_for_workers(count, timeout=START_TIMEOUT)


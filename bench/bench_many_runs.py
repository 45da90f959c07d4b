"""Many runs: 64 runs of the demo network (64K-element first tensors, 8 devices x 8 steps, NPU
fp16 dumps vs one fp32 golden folder through its fusion rule) compared on this machine, on a
2-worker loopback Dask cluster (each worker holding 4 devices' dumps and a copy of the golden), and
on a simulated 8-host cluster (8 worker processes, one device's tree each). Then the scale table:
800 runs of small ops (8 devices x 100 steps, 1K-element tensors) locally and on the 2-worker
cluster, and 100 runs of the same tree (its device 0), each job in a client process of its own.

    python bench/bench_many_runs.py [--devices 8] [--steps 8] [--image 64] [--workdir /tmp] [--keep]
                                    [--tables both|runs|scale] [--scale-steps 100] [--scale-image 8]

The scale table's figures: per-run overhead = (wall on the cluster - wall of the same tree compared
locally) / runs (target under 20 ms), and the client's peak RSS (ru_maxrss of a client process that
does nothing else) at 800 runs against 100 runs (target at most 1.2x).

Reported per case: wall time of the whole job (discovery, placement, every run, every report
written), time per run, scheduler overhead per run (cluster time minus local time, per run), and
the bytes that travelled, from distributed's own counters: the client's batched stream to the
scheduler (task submissions), the scheduler's batched streams to the workers, the workers' batched
streams to the scheduler and their data transfers out (get_data: the packed results, counted once
though they pass through the scheduler to the client). On a machine with fewer cores than workers
the cluster cases show placement and traffic, not speed. Every cluster run's CSVs are checked
byte for byte against the local run's.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests package's helpers, run from anywhere

from opdiff.engine.options import CompareOptions
from opdiff.runs import RunsRequest, compare_runs
from opdiff.runs.cluster import ClusterExecutor
from tests.support.dump_tree import DumpTree, Fault, write_dump_tree
from tests.support.local_cluster import local_cluster
from tests.support.own_peak import with_own_peak

SCALE_TABLE_HEADER = ("| job | runs | wall | per run | per-run overhead on the cluster (target < 20 ms) | client peak RSS "
                      "| peak / peak at 100 runs (target <= 1.2x) |")


@dataclass
class Case:
    name: str
    workers: int
    seconds: float
    runs: int
    travelled: int
    same_csvs: bool


def _csvs(folder: Path) -> Dict[str, bytes]:
    return {path.name.split("_result_")[0]: path.read_bytes() for path in folder.glob("*_result_*.csv")}


def _worker_counters(dask_worker) -> int:  # runs on each worker (Client.run passes the Worker)
    return int(dask_worker.transfer_outgoing_bytes_total + dask_worker.batched_stream.byte_count)


def _scheduler_counters(dask_scheduler) -> int:  # runs on the scheduler
    return int(sum(stream.byte_count for stream in dask_scheduler.stream_comms.values()))


def _traffic(executor: ClusterExecutor) -> int:
    client = executor.client
    workers = sum(client.run(_worker_counters).values())
    return int(client.scheduler_comm.byte_count) + int(client.run_on_scheduler(_scheduler_counters)) + workers


def _hosts(tree: DumpTree, base: Path, groups: Sequence[Sequence[int]]) -> List[Path]:
    hosts = []
    for number, devices in enumerate(groups):
        host = base / f"host{number}"
        for device in devices:
            shutil.copytree(tree.root / str(device), host / tree.root.name / str(device))
        shutil.copytree(tree.golden, host / "golden")
        hosts.append(host)
    return hosts


def run_cluster(name: str, tree: DumpTree, base: Path, groups: Sequence[Sequence[int]], local: Path) -> Case:
    hosts = _hosts(tree, base / name, groups)
    out = base / name / "out"
    with local_cluster(base / name / "cluster", hosts) as cluster:
        with ClusterExecutor(cluster.address) as executor:
            start = time.perf_counter()
            summary = compare_runs(RunsRequest(tree.root.name, "golden", CompareOptions(fusion_rule=tree.rule)), out, executor=executor)
            seconds = time.perf_counter() - start
            travelled = _traffic(executor)
    return Case(name, len(groups), seconds, len(summary.compared), travelled, _csvs(out) == _csvs(local))


@dataclass
class ClientJob:
    """One job as a client process of its own ran it: compare_runs' wall time and the process's peak RSS."""

    name: str
    runs: int
    compared: int
    seconds: float
    peak_mib: float


def client_job(name: str, cwd: Path, my: str, golden: str, rule: Path, out: Path, address: str = "") -> ClientJob:
    """`bench_many_runs.py --client ...` in a fresh process (its ru_maxrss its own: tests/support/own_peak.py)."""
    argv = [sys.executable, str(Path(__file__).resolve()), "--client", my, golden, str(rule), str(out), address]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).resolve().parent.parent / "python"),
                                                                   os.environ.get("PYTHONPATH", "")]))}
    done = subprocess.run(with_own_peak(argv), cwd=cwd, capture_output=True, text=True, env=env, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"{name}: the client failed: {done.stderr[-2000:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return ClientJob(name, figures["runs"], figures["compared"], figures["seconds"], figures["peak_kib"] / 1024)


def run_client(my: str, golden: str, rule: str, out: str, address: str) -> int:
    """The client process of client_job: one compare_runs, then its figures as one JSON line."""
    import resource

    executor = ClusterExecutor(address) if address else None
    try:
        start = time.perf_counter()
        summary = compare_runs(RunsRequest(my, golden, CompareOptions(fusion_rule=Path(rule))), out, executor=executor)
        seconds = time.perf_counter() - start
    finally:
        if executor is not None:
            executor.close()
    print(json.dumps({"runs": len(summary.runs), "compared": len(summary.compared), "seconds": seconds,
                      "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
    return 0


def scale_table(base: Path, devices: int, steps: int, image: int) -> bool:
    """800 runs of small ops (by default) locally and on a 2-worker loopback cluster, 100 runs of the
    same tree beside them; prints the table, True when every run was compared and the CSVs match."""
    tree = write_dump_tree(base / "scale", devices=tuple(range(devices)), steps=tuple(range(steps)),
                           fault=Fault(device=devices - 1, step=steps - 1), image_size=image)
    runs = devices * steps
    device0 = f"{tree.root.name}/0"
    local = client_job("local", tree.root.parent, tree.root.name, "golden", tree.rule, base / "scale-local")
    local_100 = client_job("local", tree.root.parent, device0, "golden", tree.rule, base / "scale-local-100")
    half = devices // 2
    hosts = _hosts(tree, base / "scale-hosts", [range(half), range(half, devices)])
    with local_cluster(base / "scale-cluster", hosts) as cluster:
        on_cluster = client_job("cluster", hosts[0], tree.root.name, "golden", tree.rule, base / "scale-cluster-out",
                                cluster.address)
        on_cluster_100 = client_job("cluster", hosts[0], device0, "golden", tree.rule, base / "scale-cluster-100",
                                    cluster.address)
    same = _csvs(base / "scale-cluster-out") == _csvs(base / "scale-local")
    print(f"{runs} runs of small ops ({devices} devices x {steps} steps, {16 * image ** 2} elements in the largest tensors, "
          f"{tree.dump_bytes / 2 ** 20:.1f} MiB of NPU dumps); 100 runs: device 0's {steps} steps; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at the end; CSVs on the cluster as local: {'yes' if same else 'NO'}")
    print()
    print(SCALE_TABLE_HEADER)
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for job, alone, hundred in ((local_100, local_100, local_100), (local, local_100, local_100),
                                (on_cluster_100, local_100, on_cluster_100), (on_cluster, local, on_cluster_100)):
        overhead = "" if job.name == "local" else f"{(job.seconds - alone.seconds) / job.runs * 1e3:.1f} ms"
        print(f"| {job.name}, {job.runs} runs | {job.compared}/{job.runs} | {job.seconds:.2f} s | {job.seconds / job.runs * 1e3:.1f} ms "
              f"| {overhead} | {job.peak_mib:.0f} MiB | {job.peak_mib / hundred.peak_mib:.2f}x |")
    return same and all(job.compared == job.runs for job in (local, local_100, on_cluster, on_cluster_100))


def runs_table(args: argparse.Namespace, base: Path) -> bool:
    tree = write_dump_tree(base / "data", devices=tuple(range(args.devices)), steps=tuple(range(args.steps)),
                           fault=Fault(device=args.devices - 1, step=args.steps - 1), image_size=args.image)
    runs = args.devices * args.steps
    local_out = base / "local"
    start = time.perf_counter()
    summary = compare_runs(RunsRequest(str(tree.root), str(tree.golden), CompareOptions(fusion_rule=tree.rule)), local_out)
    local = Case("local (core thread pool)", 0, time.perf_counter() - start, len(summary.compared), 0, True)
    half = args.devices // 2
    cases = [local,
             run_cluster("2-worker loopback cluster", tree, base, [range(half), range(half, args.devices)], local_out),
             run_cluster("simulated 8 hosts (8 workers, 8 trees)", tree, base,
                         [[device] for device in range(args.devices)], local_out)]
    print(f"{runs} runs of the demo network ({args.devices} devices x {args.steps} steps, {16 * args.image ** 2} "
          f"elements in the largest tensors), {tree.dump_bytes / 2 ** 20:.1f} MiB of NPU dumps; "
          f"{os.cpu_count()} cores{' (fewer than workers: the cluster rows show placement and traffic, not speed)' if (os.cpu_count() or 1) < 8 else ''}")
    print()
    print("| case | workers | runs compared | wall | per run | scheduler overhead per run (target < 20 ms) "
          "| bytes that travelled (target < 1% of dumps) | CSVs as local |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for case in cases:
        overhead = "" if case is local else f"{(case.seconds - local.seconds) / runs * 1e3:.1f} ms"
        travelled = "" if case is local else f"{case.travelled:,} B ({case.travelled / tree.dump_bytes:.3%})"
        print(f"| {case.name} | {case.workers or '-'} | {case.runs}/{runs} | {case.seconds:.2f} s | "
              f"{case.seconds / runs * 1e3:.1f} ms | {overhead} | {travelled} | {'yes' if case.same_csvs else 'NO'} |")
    return all(case.same_csvs and case.runs == runs for case in cases)


def main(argv: Sequence[str] = ()) -> int:
    if argv and argv[0] == "--client":  # the client process of client_job
        return run_client(*argv[1:6])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", type=int, default=8)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--image", type=int, default=64, help="image side: 64 gives 16 x 64 x 64 = 64K-element tensors")
    parser.add_argument("--tables", choices=("both", "runs", "scale"), default="both")
    parser.add_argument("--scale-steps", type=int, default=100, help="steps per device of the scale tree (8 devices)")
    parser.add_argument("--scale-image", type=int, default=8, help="image side of the scale tree: 8 gives 1K-element tensors")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args(list(argv))
    args.workdir.mkdir(parents=True, exist_ok=True)  # a --workdir that does not exist yet is made
    base = Path(tempfile.mkdtemp(prefix="opdiff-many-runs-", dir=args.workdir))
    try:
        ok = True
        if args.tables in ("both", "runs"):
            ok = runs_table(args, base) and ok
            print()
        if args.tables in ("both", "scale"):
            ok = scale_table(base, 8, args.scale_steps, args.scale_image) and ok
        return 0 if ok else 1
    finally:
        if args.keep:
            print(f"data kept in {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""What the many-run tests share: a dump tree split as the hosts of a cluster see it, the CLI as a
child process, and what a job wrote (each run's CSV, the summary)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

from tests.support.dump_tree import DumpTree

CLIENT_TIMEOUT = 120  # seconds: a client run that takes longer has hung


def host_folders(tree: DumpTree, base: Path) -> List[Path]:
    """One folder per device, as that device's host holds it: its own dumps and a copy of the golden."""
    hosts = []
    for device in tree.devices:
        host = base / f"host{device}"
        shutil.copytree(tree.root / str(device), host / tree.root.name / str(device))
        shutil.copytree(tree.golden, host / "golden")
        hosts.append(host)
    return hosts


def client_folder(tree: DumpTree, base: Path) -> Path:
    """The client's folder: the fusion rule only (the dumps are on the hosts)."""
    client = base / "client"
    client.mkdir(parents=True)
    shutil.copy(tree.rule, client / tree.rule.name)
    return client


def opdiff_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "opdiff", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=CLIENT_TIMEOUT)


def compared_locally(tree: DumpTree, out: Path) -> Dict[str, bytes]:
    """Each run's CSV of the whole tree compared on this machine (what a cluster must match)."""
    done = opdiff_cli(tree.root.parent, "compare", "-m", tree.root.name, "-g", "golden", "-f", tree.rule.name,
                      "-out", str(out))
    assert done.returncode == 0, done.stderr
    return by_run(out)


def by_run(folder: Path) -> Dict[str, bytes]:
    """Each run's result CSV in `folder`, by run label (``{device}_{model}_{step}``)."""
    return {path.name.split("_result_")[0]: path.read_bytes() for path in folder.glob("*_result_*.csv")}


def summary_of(folder: Path) -> Dict[str, Any]:
    (path,) = folder.glob("summary_*.json")
    loaded: Dict[str, Any] = json.loads(path.read_text())
    return loaded


def wait_for_first_csv(out: Path, process: subprocess.Popen[str]) -> None:
    """Until the job has written its first run's CSV (or ended): the job is then mid-run."""
    deadline = time.monotonic() + CLIENT_TIMEOUT
    while not list(out.glob("*_result_*.csv")) and process.poll() is None:
        assert time.monotonic() < deadline, "no run finished in time"
        time.sleep(0.01)


def half_written(folder: Path) -> List[str]:
    """Files a job must never leave: temporary names, or a run's CSV cut short."""
    return sorted(path.name for path in folder.iterdir() if path.name.endswith(".partial") or ".incomplete" in path.name)

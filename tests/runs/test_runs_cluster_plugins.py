"""Plug-ins (-c DIR) in many-run mode on a Dask cluster: the folder exists only beside the client;
its scripts go to the workers inside each task, and every run's CSV has the plug-in's column."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from opdiff.commands.exit_codes import ExitCode
from tests.support.dump_tree import write_dump_tree
from tests.support.local_cluster import local_cluster
from tests.support.many_runs import client_folder, host_folders, opdiff_cli
from tests.support.plugin_folders import write_plugin_folder

pytestmark = pytest.mark.cluster


def test_the_plugin_folder_travels_to_the_workers_with_the_task(tmp_path: Path) -> None:
    tree = write_dump_tree(tmp_path / "all", devices=(0, 1), steps=(0,))
    hosts, client = host_folders(tree, tmp_path), client_folder(tree, tmp_path)
    write_plugin_folder(client / "plugins", own=("OwnPeak",))
    with local_cluster(tmp_path / "cluster", hosts) as cluster:
        done = opdiff_cli(client, "compare", "-m", tree.root.name, "-g", "golden", "-f", tree.rule.name, "--scheduler",
                          cluster.address, "-c", "plugins", "-alg", "0,OwnPeak", "-a", "OwnPeak:scale=1", "-out", "out")
        assert done.returncode in (ExitCode.OK, ExitCode.THRESHOLDS), done.stderr + done.stdout + cluster.log_text()
    assert not any((host / "plugins").exists() for host in hosts)
    results = sorted((client / "out").rglob("*result_*.csv"))
    assert len(results) == 2
    for result in results:
        with open(result, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        assert any(row["OwnPeak"] not in ("NaN", "") for row in rows), result

"""Many runs on a Dask cluster on 127.0.0.1: a real scheduler and worker processes, each worker in
its own working folder holding its own device's dumps and a copy of the golden folder; the client
in a folder that holds only the fusion rule. TLS with mutual certificates, refusals, worker death."""

from __future__ import annotations

from pathlib import Path
from typing import List

import pytest

pytest.importorskip("distributed")

from opdiff.commands.exit_codes import ExitCode
from opdiff.runs.worker import EXIT_AFTER_RUNS_VARIABLE
from tests.support.dump_tree import Fault, write_dump_tree
from tests.support.local_cluster import local_cluster
from tests.support.many_runs import by_run, client_folder, half_written, host_folders, opdiff_cli, summary_of
from tests.support.tls_certificates import have_openssl, make_cluster_certificates

pytestmark = pytest.mark.cluster


def _hosts(tmp: Path):
    """The tree split as two hosts see it, the client's folder, and the local run's CSVs."""
    tree = write_dump_tree(tmp / "all", devices=(0, 1), steps=(0, 1), fault=Fault(device=1, step=1))
    local = tmp / "local"
    opdiff_cli(tree.root.parent, "compare", "-m", tree.root.name, "-g", "golden", "-f", tree.rule.name, "-out", str(local))
    return tree, host_folders(tree, tmp), client_folder(tree, tmp), local


@pytest.mark.skipif(not have_openssl(), reason="openssl is not on PATH (it makes the test's certificates)")
def test_tls_cluster_compares_where_the_data_lives_and_refuses_strangers_and_foreign_paths(tmp_path):
    tree, hosts, client, local = _hosts(tmp_path)
    certs = make_cluster_certificates(tmp_path / "certs")
    flags = ["--tls-ca-file", str(certs.client.ca), "--tls-cert", str(certs.client.cert), "--tls-key", str(certs.client.key)]
    with local_cluster(tmp_path / "cluster", hosts, tls=certs.node, client_tls=certs.client) as cluster:
        assert cluster.address.startswith("tls://127.0.0.1:")
        base = ["compare", "-m", tree.root.name, "-g", "golden", "-f", tree.rule.name, "--scheduler", cluster.address]

        done = opdiff_cli(client, *base, "-out", "out", *flags)
        assert done.returncode == ExitCode.OK, done.stderr + done.stdout + cluster.log_text()
        summary = summary_of(client / "out")
        assert [run["device"] + "_" + str(run["step"]) for run in summary["runs"]] == ["0_0", "0_1", "1_0", "1_1"]
        assert {run["location"] for run in summary["runs"] if run["device"] == "0"} != \
               {run["location"] for run in summary["runs"] if run["device"] == "1"}  # each host compared its own
        assert by_run(client / "out") == by_run(local)  # byte for byte the local run's CSVs
        assert not list(hosts[0].rglob("*.csv")) and not list(hosts[1].rglob("*.csv"))  # the client writes every file

        stranger = ["--tls-ca-file", str(certs.stranger.ca), "--tls-cert", str(certs.stranger.cert),
                    "--tls-key", str(certs.stranger.key)]
        refused = opdiff_cli(client, *base, "-out", "refused", *stranger)
        assert refused.returncode == ExitCode.CLUSTER_LOST, refused.stderr
        assert "cannot connect to the scheduler" in refused.stderr and not (client / "refused").exists()

        outside = opdiff_cli(client, "compare", "-m", str(tree.root), "-g", "golden", "-f", tree.rule.name,
                          "--scheduler", cluster.address, "-out", "outside", *flags)
        assert outside.returncode == ExitCode.BAD_INPUT, outside.stderr
        assert "outside the folders this worker serves" in outside.stderr


def test_a_worker_that_dies_leaves_its_runs_reported_not_half_written(tmp_path):
    tree, hosts, client, _ = _hosts(tmp_path)
    with local_cluster(tmp_path / "cluster", hosts, worker_env={0: {EXIT_AFTER_RUNS_VARIABLE: "1"}}) as cluster:
        done = opdiff_cli(client, "compare", "-m", tree.root.name, "-g", "golden", "-f", tree.rule.name,
                       "--scheduler", cluster.address, "--lost-after", "3", "-out", "out")
        assert cluster.workers[0].poll() is not None  # the switch did end worker 0
    assert done.returncode == ExitCode.CLUSTER_LOST, done.stderr + done.stdout
    summary = summary_of(client / "out")
    runs = {f"{run['device']}_{run['step']}": run for run in summary["runs"]}
    lost: List[str] = [name for name, run in runs.items() if run["status"] != "compared"]
    assert lost == ["0_1"] and summary["complete"] is False and summary["end"] == "cluster lost"
    assert "its worker was lost before the run finished" in runs["0_1"]["reason"]
    assert sorted(by_run(client / "out")) == ["0_demo_net_0", "1_demo_net_0", "1_demo_net_1"]
    assert half_written(client / "out") == []

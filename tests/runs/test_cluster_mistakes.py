"""The mistakes a user makes connecting to a cluster, each against a real TLS scheduler on
127.0.0.1: one ``error:`` line naming what to fix, exit 2 (this client's configuration, found
before anything is sent) or 5 (the scheduler could not be reached, or refused), no traceback, and
no hang (not even Dask's Client.__del__, which once printed a traceback 20 s after the error)."""

from __future__ import annotations

import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Tuple

import pytest

pytest.importorskip("distributed")

from opdiff.commands.exit_codes import ExitCode
from tests.support.dump_tree import DumpTree, write_dump_tree
from tests.support.local_cluster import LocalCluster, local_cluster
from tests.support.tls_certificates import ClusterCertificates, TlsFiles, have_openssl, make_cluster_certificates

pytestmark = [pytest.mark.cluster,
              pytest.mark.skipif(not have_openssl(), reason="openssl is not on PATH (it makes the test's certificates)")]
CLIENT_TIMEOUT = 60  # seconds: a client that takes longer has hung


def _flags(files: TlsFiles) -> List[str]:
    return ["--tls-ca-file", str(files.ca), "--tls-cert", str(files.cert), "--tls-key", str(files.key)]


def _free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class TlsSite:
    base: Path
    tree: DumpTree
    certs: ClusterCertificates
    cluster: LocalCluster
    plain: LocalCluster  # a scheduler without TLS


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsSite]:
    """One TLS scheduler and one plain, each with a worker, for every case."""
    base = tmp_path_factory.mktemp("mistakes")
    tree = write_dump_tree(base / "data", devices=(0,), steps=(0,))
    certs = make_cluster_certificates(base / "certs")
    with local_cluster(base / "cluster", [base / "data"], tls=certs.node, client_tls=certs.client) as cluster, \
            local_cluster(base / "plain", [base / "data"]) as plain:
        yield TlsSite(base, tree, certs, cluster, plain)


def _tls(site: TlsSite) -> str:
    return site.cluster.address


def _tcp(site: TlsSite) -> str:
    """The TLS scheduler's address with a plain scheme."""
    return site.cluster.address.replace("tls://", "tcp://")


# case: (the command's --scheduler and TLS flags, the exit code, words the one line must hold)
CASES: Dict[str, Tuple[Callable[[TlsSite], List[str]], ExitCode, str]] = {
    "tls without certificates": (lambda s: [_tls(s)], ExitCode.BAD_INPUT,
                                 "a tls:// scheduler needs this client's certificates: give --tls-ca-file, --tls-cert and --tls-key"),
    "a certificate from another CA": (lambda s: [_tls(s), *_flags(s.certs.stranger)], ExitCode.CLUSTER_LOST,
                                      "the scheduler refused this client's certificate: another CA signed it"),
    "an expired certificate": (lambda s: [_tls(s), *_flags(s.certs.expired)], ExitCode.CLUSTER_LOST,
                               "the scheduler refused this client's certificate: it has expired (renew --tls-cert)"),
    "trusting another CA than the cluster's": (lambda s: [_tls(s), *_flags(s.certs.distrustful)], ExitCode.CLUSTER_LOST,
                                               "this client does not trust the scheduler's certificate (--tls-ca-file"),
    "plain tcp to a TLS scheduler": (lambda s: [_tcp(s)], ExitCode.CLUSTER_LOST,
                                     "a TLS scheduler does that to plain tcp:// (use its tls:// address"),
    "tls to a plain scheduler": (lambda s: [s.plain.address.replace("tcp://", "tls://"), *_flags(s.certs.client)],
                                 ExitCode.CLUSTER_LOST, "no TLS handshake with the scheduler: it may speak plain tcp://"),
    "TLS flags with a tcp address": (lambda s: [_tcp(s), *_flags(s.certs.client)], ExitCode.BAD_INPUT,
                                     "--tls-* certificates with a plain tcp:// address"),
    "nothing listens": (lambda s: [f"tcp://127.0.0.1:{_free_port()}"], ExitCode.CLUSTER_LOST,
                        "nothing listens there (start the scheduler, or fix the address or port)"),
    "a missing certificate file": (lambda s: [_tls(s), "--tls-ca-file", str(s.certs.client.ca), "--tls-cert", "nowhere.pem",
                                              "--tls-key", str(s.certs.client.key)], ExitCode.BAD_INPUT,
                                   "--tls-cert nowhere.pem: no such file"),
    "a key that is not the certificate's": (lambda s: [_tls(s), "--tls-ca-file", str(s.certs.client.ca), "--tls-cert",
                                                       str(s.certs.client.cert), "--tls-key", str(s.certs.node.key)],
                                            ExitCode.BAD_INPUT, "is not the key of --tls-cert"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_cluster_mistake_is_one_line_naming_what_to_fix(site: TlsSite, case: str) -> None:
    make_flags, code, words = CASES[case]
    scheduler, *tls = make_flags(site)
    out = site.base / case.replace(" ", "_")
    done = subprocess.run([sys.executable, "-m", "opdiff", "compare", "-m", site.tree.root.name, "-g", "golden",
                           "-f", str(site.tree.rule), "--scheduler", scheduler, *tls, "-out", str(out)],
                          cwd=site.base / "data", capture_output=True, text=True, timeout=CLIENT_TIMEOUT)
    assert done.returncode == code, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr  # one line, nothing after it
    assert words in done.stderr and "Traceback" not in done.stderr + done.stdout, done.stderr
    assert not out.exists()  # nothing written: the job never started

"""Certificates for a TLS cluster on loopback, made with ``openssl`` on PATH: a CA, one certificate
for the scheduler and workers, one for the client, and the mistakes a client can make: a certificate
from another CA, an expired certificate, and trusting another CA than the cluster's (each of which
the cluster or the client must refuse)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

OPENSSL_TIMEOUT = 60


@dataclass(frozen=True)
class TlsFiles:
    ca: Path
    cert: Path
    key: Path


@dataclass(frozen=True)
class ClusterCertificates:
    node: TlsFiles  # scheduler and workers
    client: TlsFiles
    stranger: TlsFiles  # a client certificate signed by a CA the cluster does not know
    expired: TlsFiles  # a client certificate of the cluster's CA whose validity ended yesterday
    distrustful: TlsFiles  # the cluster's client certificate, trusting another CA (so not the scheduler)


def have_openssl() -> bool:
    return shutil.which("openssl") is not None


def _run(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=OPENSSL_TIMEOUT)


def _ca(folder: Path, name: str) -> TlsFiles:
    key, cert = folder / f"{name}.key", folder / f"{name}.pem"
    _run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1",
         "-subj", f"/CN={name}")
    return TlsFiles(cert, cert, key)


def _signed(folder: Path, name: str, ca: TlsFiles, days: int = 1) -> TlsFiles:
    """A certificate for `name` signed by `ca`, valid for `days` from now (-1: expired yesterday)."""
    key, request, cert = folder / f"{name}.key", folder / f"{name}.csr", folder / f"{name}.pem"
    _run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(request), "-subj", f"/CN={name}")
    _run("x509", "-req", "-in", str(request), "-CA", str(ca.cert), "-CAkey", str(ca.key), "-CAcreateserial",
         "-out", str(cert), "-days", str(days))
    return TlsFiles(ca.cert, cert, key)


def make_cluster_certificates(folder: Path) -> ClusterCertificates:
    folder.mkdir(parents=True, exist_ok=True)
    ca = _ca(folder, "opdiff-test-ca")
    other_ca = _ca(folder, "another-ca")
    stranger = _signed(folder, "stranger", other_ca)
    expired = _signed(folder, "expired", ca, days=-1)
    client = _signed(folder, "client", ca)
    # The stranger trusts the cluster's CA, so only its own certificate can be what is refused.
    return ClusterCertificates(_signed(folder, "node", ca), client, TlsFiles(ca.cert, stranger.cert, stranger.key),
                               expired, TlsFiles(other_ca.cert, client.cert, client.key))

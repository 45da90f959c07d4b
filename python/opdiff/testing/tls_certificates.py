"""Certificates for a TLS cluster on loopback, made with ``openssl`` on PATH: a CA, one certificate
for the scheduler and workers, one for the client, and a client certificate from another CA (which
the cluster must refuse)."""

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


def have_openssl() -> bool:
    return shutil.which("openssl") is not None


def _run(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=OPENSSL_TIMEOUT)


def _ca(folder: Path, name: str) -> TlsFiles:
    key, cert = folder / f"{name}.key", folder / f"{name}.pem"
    _run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1",
         "-subj", f"/CN={name}")
    return TlsFiles(cert, cert, key)


def _signed(folder: Path, name: str, ca: TlsFiles) -> TlsFiles:
    key, request, cert = folder / f"{name}.key", folder / f"{name}.csr", folder / f"{name}.pem"
    _run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(request), "-subj", f"/CN={name}")
    _run("x509", "-req", "-in", str(request), "-CA", str(ca.cert), "-CAkey", str(ca.key), "-CAcreateserial",
         "-out", str(cert), "-days", "1")
    return TlsFiles(ca.cert, cert, key)


def make_cluster_certificates(folder: Path) -> ClusterCertificates:
    folder.mkdir(parents=True, exist_ok=True)
    ca = _ca(folder, "opdiff-test-ca")
    other_ca = _ca(folder, "another-ca")
    stranger = _signed(folder, "stranger", other_ca)
    # The stranger trusts the cluster's CA, so only its own certificate can be what is refused.
    return ClusterCertificates(_signed(folder, "node", ca), _signed(folder, "client", ca),
                               TlsFiles(ca.cert, stranger.cert, stranger.key))

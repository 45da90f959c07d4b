"""Connecting to a cluster safely. A Dask cluster runs whatever a connected client sends, so access
to it is access to the NPU hosts: opdiff speaks Dask's TLS with mutual certificates (``tls://``
addresses) and warns about plain ``tcp://`` beyond this machine."""

from __future__ import annotations

import ipaddress
import os
import ssl
from typing import TYPE_CHECKING, Optional, Tuple
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from distributed.security import Security

SCHEDULER_VARIABLE = "OPDIFF_SCHEDULER"
HANDSHAKE_ROUNDS = 8  # own_certificate_problem: a TLS 1.2 or 1.3 handshake takes two or three flights each way


def tls_security(ca_file: Optional[str], cert: Optional[str], key: Optional[str]) -> Optional[Security]:
    """Mutual TLS from these files (the CA that signed the cluster's certificates, and this client's
    certificate and key); None when none is given, so that Dask's own configuration
    (``distributed.comm.tls.*``) applies. ValueError when only some are given."""
    given = [value for value in (ca_file, cert, key) if value]
    if not given:
        return None
    if len(given) != 3:
        raise ValueError("TLS needs all three of --tls-ca-file, --tls-cert and --tls-key")
    from distributed.security import Security

    return Security(  # type: ignore[no-untyped-call]
        tls_ca_file=ca_file, tls_client_cert=cert, tls_client_key=key, require_encryption=True)


def client_security(address: str, ca_file: Optional[str], cert: Optional[str], key: Optional[str]) -> Optional[Security]:
    """What to connect to `address` with: the three files (tls_security), or for a ``tls://`` address
    without them Dask's configuration. ValueError naming what to fix when this client cannot speak
    TLS to it (no certificates, a missing file, a key that is not the certificate's, TLS flags for a
    plain address), before anything is sent."""
    security = tls_security(ca_file, cert, key)
    scheme = address_scheme(address)
    if scheme != "tls":
        if security is not None:
            raise ValueError(f"{address}: --tls-* certificates with a plain {scheme}:// address; a TLS scheduler "
                             "is at a tls:// address")
        return security
    if security is None:
        from distributed.security import Security

        security = Security()  # type: ignore[no-untyped-call]  # Dask's configuration, distributed.comm.tls.*
    tls = security.get_tls_config_for_role("client")  # type: ignore[no-untyped-call]
    ca, client_cert, client_key = tls["ca_file"], tls["cert"], tls["key"]
    if not ca or not client_cert:
        raise ValueError(f"{address}: a tls:// scheduler needs this client's certificates: give --tls-ca-file, "
                         "--tls-cert and --tls-key (or set distributed.comm.tls.ca-file, client.cert and client.key "
                         "in Dask's configuration)")
    _check_tls_files((("--tls-ca-file", ca), ("--tls-cert", client_cert), ("--tls-key", client_key)))
    try:
        security.get_connection_args("client")  # type: ignore[no-untyped-call]  # Dask builds its SSL context
    except ssl.SSLError as error:
        if error.reason == "KEY_VALUES_MISMATCH":
            raise ValueError(f"--tls-key {client_key} is not the key of --tls-cert {client_cert}") from None
        raise ValueError(f"--tls-ca-file {ca}, --tls-cert {client_cert}, --tls-key {client_key}: not a CA, a "
                         f"certificate and its key in PEM ({error.reason or error})") from None
    return security


def _check_tls_files(files: Tuple[Tuple[str, Optional[str]], ...]) -> None:
    for flag, path in files:
        if path and "\n" not in path and not os.path.isfile(path):  # Dask also takes PEM text in place of a file
            raise ValueError(f"{flag} {path}: no such file")


def address_scheme(address: str) -> str:
    """``tcp``, ``tls``, ... of a scheduler address (Dask's default, tcp, when it names none)."""
    return urlsplit(address).scheme if "://" in address else "tcp"


def plain_address_warning(address: str) -> Optional[str]:
    """A warning for an unencrypted address that is not loopback (None otherwise)."""
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme not in ("tcp", "ws", ""):
        return None
    host = parts.hostname or ""
    if host == "localhost" or _is_loopback(host):
        return None
    return (f"{address}: plain {parts.scheme}:// to another host; whoever reaches this scheduler can run code on "
            "every worker. Use tls:// with certificates (docs/many-runs.md)")


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def own_certificate_problem(security: Security) -> Optional[str]:
    """What a scheduler with this client's CA would say of this client's certificate ("certificate
    has expired", "unable to get local issuer certificate"), or None when it would take it. A
    scheduler that refuses a certificate may close the connection before its alert arrives, so the
    client checks its own: an in-memory handshake in which a server trusting ``--tls-ca-file``
    verifies ``--tls-cert``."""
    tls = security.get_tls_config_for_role("client")  # type: ignore[no-untyped-call]
    ca, cert, key = tls["ca_file"], tls["cert"], tls["key"]
    if not ca or not cert or any("\n" in value for value in (ca, cert, key or "")):
        return None  # PEM text rather than files: nothing to load here
    server, client = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER), ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    server.verify_mode = ssl.CERT_REQUIRED
    client.check_hostname, client.verify_mode = False, ssl.CERT_NONE
    try:
        server.load_cert_chain(cert, key)  # the client's own pair stands in for the scheduler's
        server.load_verify_locations(ca)
        client.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError):
        return None  # files this client cannot load: client_security names them before connecting
    to_server, to_client = ssl.MemoryBIO(), ssl.MemoryBIO()
    server_side = server.wrap_bio(to_server, to_client, server_side=True)
    client_side = client.wrap_bio(to_client, to_server)
    for _ in range(HANDSHAKE_ROUNDS):
        for side in (client_side, server_side):
            try:
                side.do_handshake()
            except ssl.SSLWantReadError:
                continue
            except ssl.SSLCertVerificationError as error:
                return str(error.verify_message)
            except ssl.SSLError as error:
                return str(error.reason or error)
        if server_side.version() is not None and client_side.version() is not None and not to_server.pending:
            return None
    return None

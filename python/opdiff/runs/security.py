"""Connecting to a cluster safely. A Dask cluster runs whatever a connected client sends, so access
to it is access to the NPU hosts: opdiff speaks Dask's TLS with mutual certificates (``tls://``
addresses) and warns about plain ``tcp://`` beyond this machine."""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Optional
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from distributed.security import Security

SCHEDULER_VARIABLE = "OPDIFF_SCHEDULER"


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

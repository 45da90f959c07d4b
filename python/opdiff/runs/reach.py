"""Why a scheduler cannot be reached, in words a person can act on: nothing listens at the address,
no answer, or a TLS handshake one side refused (and which side, and why). Dask's own errors name
the socket and the OpenSSL alert; these name the flag or the certificate to fix."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING, Iterator, Optional, Tuple
from urllib.parse import urlsplit

from opdiff.runs.security import address_scheme, own_certificate_problem

if TYPE_CHECKING:
    from distributed.security import Security

# (text in the error or one of its causes, what it means), first match wins: what this client's
# own check of the scheduler's certificate says, then the alerts a scheduler sends when it refuses
# this client's certificate (when they arrive before the connection closes).
_CAUSES: Tuple[Tuple[str, str], ...] = (
    ("certificate verify failed: certificate has expired", "the scheduler's certificate has expired (renew the "
                                                           "cluster's certificates)"),
    ("TLS certificate does not match", "this client does not trust the scheduler's certificate (--tls-ca-file must "
                                       "be the CA that signed the cluster's certificates)"),
    ("CERTIFICATE_VERIFY_FAILED", "this client does not trust the scheduler's certificate (--tls-ca-file must be the "
                                  "CA that signed the cluster's certificates)"),
    ("CERTIFICATE_EXPIRED", "the scheduler refused this client's certificate: it has expired (renew --tls-cert)"),
    ("UNKNOWN_CA", "the scheduler refused this client's certificate: another CA signed it (--tls-cert must be "
                   "signed by the CA of the cluster's certificates)"),
    ("BAD_CERTIFICATE", "the scheduler refused this client's certificate (--tls-cert)"),
    ("CERTIFICATE_REQUIRED", "the scheduler wants a client certificate (--tls-cert and --tls-key)"),
)
# What the client's own check of its certificate finds (security.own_certificate_problem), in words.
_OWN_PROBLEMS: Tuple[Tuple[str, str], ...] = (
    ("expired", "it has expired (renew --tls-cert)"),
    ("not yet valid", "it is not valid yet (check the clocks, or --tls-cert)"),
    ("local issuer", "another CA signed it than --tls-ca-file, the cluster's (--tls-cert must be signed by the CA "
                     "of the cluster's certificates)"),
)
_PLAIN_CLOSED = ("the scheduler closed the connection before it started: a TLS scheduler does that to plain tcp:// "
                 "(use its tls:// address and --tls-ca-file, --tls-cert, --tls-key)")
_TLS_CLOSED = ("no TLS handshake with the scheduler: it may speak plain tcp:// (check the scheme of --scheduler)")
_NO_HANDSHAKE = ("SSLEOFError", "WRONG_VERSION_NUMBER", "not idle; cannot convert to SSL")


def unreachable_reason(address: str, timeout: float) -> Optional[str]:
    """Why nothing can be reached at `address` over TCP, or None when something listens there (or
    the address is no host:port). Asked before Dask connects, which would retry a refused
    connection until its timeout and then name only the timeout."""
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme not in ("tcp", "tls") or not parts.hostname:
        return None
    try:
        port = parts.port
    except ValueError:
        return f"{parts.netloc} is no host:port"
    if port is None:
        return None
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout):
            return None
    except socket.gaierror:
        return f"no such host, {parts.hostname}"
    except ConnectionRefusedError:
        return "nothing listens there (start the scheduler, or fix the address or port)"
    except TimeoutError:
        return f"no answer within {timeout:g} s (a firewall, or a host that is down)"
    except OSError as error:
        return str(error.strerror or error)


def connect_failure(address: str, error: BaseException, security: Optional[Security] = None) -> str:
    """`error` (Dask's, connecting to `address` with `security`) as what to fix, or as Dask says it
    when unknown."""
    text = " ".join(f"{type(cause).__name__}: {cause}" for cause in _causes(error))
    for needle, meaning in _CAUSES[:3]:  # this client refused the scheduler's certificate
        if needle in text:
            return meaning
    if address_scheme(address) == "tls" and security is not None:
        problem = own_certificate_problem(security)
        if problem is not None:
            words = next((meaning for needle, meaning in _OWN_PROBLEMS if needle in problem), problem)
            return f"the scheduler refused this client's certificate: {words}"
    for needle, meaning in _CAUSES[3:]:
        if needle in text:
            return meaning
    if address_scheme(address) == "tcp" and ("ConnectionResetError" in text or "Stream is closed" in text):
        return _PLAIN_CLOSED
    if address_scheme(address) == "tls" and (any(needle in text for needle in _NO_HANDSHAKE) or not str(error).strip()):
        return _TLS_CLOSED
    return str(error).strip() or type(error).__name__


def _causes(error: BaseException) -> Iterator[BaseException]:
    seen = 0
    current: Optional[BaseException] = error
    while current is not None and seen < 10:  # a cause chain is short; the bound only guards a cycle
        yield current
        current = current.__cause__ or current.__context__
        seen += 1

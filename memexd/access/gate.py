"""From a request's credentials to the :class:`Access` it runs with.

Credentials travel as ``Authorization: Bearer <key or token>`` over HTTP and
as ``{"Authorization": "Bearer …"}`` in the WebSocket ``connection_init``
payload. Keys (``mxk_…``) are looked up in the key store; anything else is
a JWT. Anonymous callers get everything, but only while no key was ever
created and no JWT key is configured, and only when memexd listens on a
loopback address (or ``MEMEXD_ALLOW_ANONYMOUS`` says so, with a warning).
Credentials that are present are always checked, even when anonymous
callers are let in.
"""

from __future__ import annotations

import ipaddress
import logging
import socket

from memexd.access.grants import Access
from memexd.access.keys import KeyFileError, KeyStore
from memexd.access.tokens import TokenVerifier
from memexd.errors import StartupError, StorageUnavailable, Unauthenticated
from memexd.settings import Settings

__all__ = ["ANONYMOUS", "Gate", "is_loopback"]

log = logging.getLogger("memexd.access")

ANONYMOUS = Access.everything("anonymous")
_SCHEME = "bearer "


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` stands for is a loopback address."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(i[4][0]).is_loopback for i in infos)


class Gate:
    def __init__(self, settings: Settings) -> None:
        self.keys = KeyStore(settings.keys_path)
        self.tokens = TokenVerifier.configure(settings)
        self.open_host = is_loopback(settings.host) or settings.allow_anonymous

    def configured(self) -> bool:
        """Whether callers must authenticate (a key exists or JWT is set up)."""
        return self.tokens is not None or self.keys.configured()

    def check_start(self, bound_host: str) -> None:
        """Refuse to listen beyond loopback with nobody to authenticate, unless
        anonymous access is explicitly allowed (then warn)."""
        if self.configured() or is_loopback(bound_host):
            return
        if not self.open_host:
            raise StartupError(
                f"refusing to listen on {bound_host} without authentication: create an API "
                "key (memexd keys create), configure JWT, or set MEMEXD_ALLOW_ANONYMOUS=true"
            )
        log.warning("anyone who reaches %s can read and write every scope", bound_host)

    def authenticate(self, authorization: str | None) -> Access:
        """The caller's access, or ``Unauthenticated``; ``StorageUnavailable``
        while the key file cannot be read (fail closed)."""
        try:
            return self._authenticate(authorization)
        except KeyFileError as exc:
            log.error("%s", exc.message)
            raise StorageUnavailable("API keys cannot be checked right now") from None

    def _authenticate(self, authorization: str | None) -> Access:
        if not authorization:
            if not self.configured() and self.open_host:
                return ANONYMOUS
            raise Unauthenticated("credentials required: Authorization: Bearer <key or token>")
        if authorization[: len(_SCHEME)].lower() != _SCHEME:
            raise Unauthenticated("use Authorization: Bearer <key or token>")
        credential = authorization[len(_SCHEME) :].strip()
        try:
            if credential.startswith("mxk_"):
                return self.keys.authenticate(credential)
            if self.tokens is None:
                raise Unauthenticated("JWT is not configured; use an API key")
            return self.tokens.authenticate(credential)
        except Unauthenticated as exc:
            log.info("rejected credentials: %s", exc.message)
            raise

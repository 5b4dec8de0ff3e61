"""TLS to an external FalkorDB and its Sentinels.

``rediss://`` (or ``falkors://``) speaks TLS to one node;
``rediss+sentinel://`` (or ``falkors+sentinel://``) to the Sentinels and to
every node they name. The engine's certificate is always verified, against
``MEMEXD_GRAPH_TLS_CA`` when set (a private CA) or the system's CAs, and it
must name the host memexd connects to (for a node a Sentinel names, the
address the Sentinel gives, often an IP). ``MEMEXD_GRAPH_TLS_CERT`` and
``MEMEXD_GRAPH_TLS_KEY`` are memexd's own certificate, for engines that ask
for one (``tls-auth-clients yes``). See docs/high-availability.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["TLS"]


@dataclass(frozen=True, slots=True)
class TLS:
    """How memexd proves and checks identities over TLS."""

    ca: Path | None = None
    cert: Path | None = None
    key: Path | None = None

    def connection(self) -> dict[str, Any]:
        """Options of redis-py's TLS connections (``SSLConnection`` and the
        Sentinel-managed one): verification is never turned off."""
        return {
            "ssl_cert_reqs": "required",
            "ssl_check_hostname": True,
            "ssl_ca_certs": _text(self.ca),
            "ssl_certfile": _text(self.cert),
            "ssl_keyfile": _text(self.key),
        }

    def client(self) -> dict[str, Any]:
        """Options of a redis-py client (``Redis``) that speaks TLS."""
        return {"ssl": True, **self.connection()}


def _text(path: Path | None) -> str | None:
    return None if path is None else str(path)

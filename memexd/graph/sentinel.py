"""FalkorDB behind Sentinels: finding the primary, and following it through
a failover.

``MEMEXD_GRAPH_URI=redis+sentinel://[user:password@]host:port[,host:port…]/service``
names the Sentinels and the primary's service name (the ``sentinel monitor
<service> …`` of their configuration). The credentials are the data nodes'
and, unless ``?sentinel_password=`` says otherwise, the Sentinels' too.

Each connection asks the Sentinels where the primary is when it connects
(redis-py's ``SentinelManagedConnection``); a ``READONLY`` answer (the node
was demoted) drops it, so the next one asks again. :class:`Primary` is what
a store waits on meanwhile, as it waits on an embedded engine's restart
(:class:`~memexd.graph.shared.Supervised`), and it listens for the
Sentinels' ``+switch-master``: an old primary stopped (cut off) and back
still says it is the primary until the Sentinels demote it, and takes
writes that the new primary never sees; at the announcement the store drops
every connection made before. See docs/high-availability.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import redis.asyncio as aioredis
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.exceptions import RedisError

from memexd.graph.tls import TLS
from memexd.settings import SENTINEL_SCHEMES, TLS_SCHEMES

__all__ = ["SCHEMES", "Primary", "Topology", "parse"]

#: URI schemes of a FalkorDB behind Sentinels.
SCHEMES = SENTINEL_SCHEMES
_SENTINEL_PORT = 26379
_OPTIONS = frozenset({"sentinel_password"})
#: How often a store waiting for a primary asks the Sentinels again.
_PROBE_S = 0.2
#: How long a Sentinel or a candidate primary may take to answer.
_ASK_S = 1.0


@dataclass(frozen=True, slots=True)
class Topology:
    """What a Sentinel URI says."""

    sentinels: tuple[tuple[str, int], ...]
    service: str
    username: str | None
    password: str | None
    sentinel_password: str | None
    #: TLS to the Sentinels and the nodes (rediss+sentinel://)
    tls: bool = False


def parse(uri: str) -> Topology:
    """The topology a Sentinel URI names; ``ValueError`` saying what is wrong."""
    parts = urlsplit(uri)
    if parts.scheme not in SCHEMES:
        raise ValueError(f"not a Sentinel URI (scheme {parts.scheme!r})")
    userinfo, _, hosts = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    service = unquote(parts.path.strip("/"))
    if not service or "/" in service:
        raise ValueError("name the primary's service: redis+sentinel://host:26379/<service>")
    query = parse_qs(parts.query, keep_blank_values=True)
    if unknown := sorted(set(query) - _OPTIONS):
        raise ValueError(f"unknown option {unknown[0]!r}; known: {', '.join(sorted(_OPTIONS))}")
    given = query.get("sentinel_password", [None])[-1]
    return Topology(
        sentinels=tuple(_address(host) for host in hosts.split(",")),
        service=service,
        username=unquote(user) or None,
        password=unquote(password) or None,
        sentinel_password=given if given is not None else unquote(password) or None,
        tls=parts.scheme in TLS_SCHEMES,
    )


def _address(text: str) -> tuple[str, int]:
    """``host[:port]`` (an IPv6 host in brackets)."""
    host, port = text, ""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest.removeprefix(":")
    elif ":" in text:
        host, _, port = text.rpartition(":")
    if not host:
        raise ValueError(f"a Sentinel without a host: {text!r}")
    if port and not (port.isdigit() and 0 < int(port) < 65536):
        raise ValueError(f"not a port: {port!r} (in {text!r})")
    return host, int(port) if port else _SENTINEL_PORT


class Primary:
    """The primary the Sentinels name (:class:`~memexd.graph.shared.Supervised`):
    a store whose connection broke waits here for one that answers, and
    counts a failover when the primary's address changes (the store then
    drops connections it made to the old one)."""

    def __init__(self, topology: Topology, options: dict[str, Any], tls: TLS) -> None:
        self.service = topology.service
        self.address: tuple[str, int] | None = None
        self._topology = topology
        #: a client's TLS options (none without TLS)
        self._secure = tls.client() if topology.tls else {}
        asking = {"socket_connect_timeout": _ASK_S, "socket_timeout": _ASK_S}
        self._sentinel = Sentinel(
            list(topology.sentinels),
            sentinel_kwargs={"password": topology.sentinel_password, **asking, **self._secure},
        )
        self._options = options
        #: the pools redis-py's Sentinel-managed connections ask for the
        #: primary, and for a replica (in turn; the primary when none answers)
        self.pool = self._pool(is_master=True)
        self.replicas = self._pool(is_master=False)
        self._failovers = 0
        self._listener: asyncio.Task[None] | None = None

    def _pool(self, *, is_master: bool) -> SentinelConnectionPool:
        return SentinelConnectionPool(  # type: ignore[no-untyped-call]
            self.service, self._sentinel, is_master=is_master, ssl=self._topology.tls,
            **self._options,
        )  # fmt: skip

    @property
    def restarts(self) -> int:
        """Failovers seen (asked by a store before each command: the first
        ask starts listening for the Sentinels' announcements)."""
        if self._listener is None:
            self._listener = asyncio.create_task(self._listen(), name="memexd-sentinel-listener")
        return self._failovers

    def _moved(self, address: tuple[str, int]) -> None:
        """The primary is at ``address``: a change is a failover to the store
        (it drops connections made before; once too many is harmless)."""
        if address != self.address:
            self._failovers += 1
            self.address = address

    async def _listen(self) -> None:
        """Follow ``+switch-master`` on every Sentinel (the one that led the
        failover announces it at once; the others may not)."""
        await asyncio.gather(*(self._follow(host, port) for host, port in self._topology.sentinels))

    async def _follow(self, host: str, port: int) -> None:
        while True:
            client = aioredis.Redis(
                host=host, port=port, password=self._topology.sentinel_password,
                socket_connect_timeout=_ASK_S, **self._secure,
            )  # fmt: skip
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.subscribe("+switch-master")
                    async for message in pubsub.listen():
                        self._announced(message)
            except (RedisError, OSError):
                await asyncio.sleep(_PROBE_S)  # that Sentinel is down: again later
            finally:
                await client.aclose()

    def _announced(self, message: dict[str, Any]) -> None:
        """``<service> <old host> <old port> <new host> <new port>``."""
        if message.get("type") != "message":
            return
        words = message["data"].decode().split()
        if len(words) == 5 and words[0] == self.service:
            self._moved((words[3], int(words[4])))

    async def wait_ready(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a primary that answers."""
        deadline = time.monotonic() + timeout
        while not await self._found():
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(_PROBE_S)
        return True

    async def _found(self) -> bool:
        try:
            address = await self._sentinel.discover_master(self.service)
        except (RedisError, OSError):
            return False  # no Sentinel knows a healthy primary (yet)
        self._moved(address)
        return await _answers(address, self._options, self._secure)

    async def compact(self) -> None:
        """Nothing: the nodes' files are their operator's."""

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        for client in self._sentinel.sentinels:
            await client.aclose()
        await self.pool.disconnect()
        await self.replicas.disconnect()


async def _answers(
    address: tuple[str, int], options: dict[str, Any], secure: dict[str, Any]
) -> bool:
    host, port = address
    client = aioredis.Redis(
        host=host, port=port, username=options.get("username"), password=options.get("password"),
        socket_connect_timeout=_ASK_S, **secure,
    )  # fmt: skip
    try:
        async with asyncio.timeout(_ASK_S):
            return bool(await client.ping())
    except (RedisError, OSError, TimeoutError):
        return False
    finally:
        await client.aclose()

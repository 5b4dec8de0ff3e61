"""Connection guards for the HTTP/1.1 server: read deadlines and a connection cap.

This module owns what happens on a client socket before the ASGI app sees a
request. uvicorn's httptools protocol only times out *idle keep-alive*
connections (after a response, until the next byte); it never times out a
connection that is still sending its request line and headers, or its body,
nor one that connects and sends nothing, and its ``limit_concurrency`` only
answers 503 once headers are complete. A slowloris client can therefore hold
a socket (and a file descriptor) forever. :class:`GuardedHttpProtocol` adds:

* a **header deadline**, from connection open and from the first byte of each
  later request until its headers are complete;
* a **body deadline**, from the end of the headers until the whole body has
  arrived (it includes time the server spends not reading because a pipelined
  earlier request is still in flight, or because the app has not consumed a
  buffered body over uvicorn's 64 KiB high-water mark);
* a **connection cap**: a connection opened while ``max_connections`` are
  already open is answered 503 with ``Retry-After`` and closed before it is
  registered.

When a deadline passes, the client gets a bare ``408 Request Timeout`` if no
response is in progress on the connection, the request (if any) is marked
disconnected so the app's ``receive()`` returns ``http.disconnect``, and the
socket is closed. uvicorn's own keep-alive timeout (``timeout_keep_alive``) is
left as it is.

uvicorn builds protocols with a fixed signature, so the limits travel as class
attributes: :func:`guarded_protocol` returns a configured subclass to pass as
``uvicorn.Config(app, http=guarded_protocol(...), timeout_keep_alive=...)``.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import math
import os
from typing import Any, ClassVar

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

__all__ = ["GuardedHttpProtocol", "guarded_protocol"]

logger = logging.getLogger("memexd.server.protocol")

_REQUEST_TIMEOUT = b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
# Retry-After: the cap is reached by a burst; a second is long enough for
# connections to close, short enough not to idle a client.
_SERVICE_UNAVAILABLE = (
    b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\n"
    b"Content-Length: 0\r\n\r\n"
)
# Rejections can come by the thousand under attack: warn at most this often.
_CAP_WARNING_INTERVAL = 10.0


class _Phase(enum.Enum):
    """Where the request parser is; each reading phase has its own deadline."""

    IDLE = enum.auto()  # between requests (uvicorn's keep-alive timer applies)
    HEADERS = enum.auto()  # request line and headers: header deadline
    BODY = enum.auto()  # body: body deadline
    DONE = enum.auto()  # rejected, timed out, upgraded or closed: no deadline


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with header/body read deadlines and a connection cap.

    One timer per connection at most: the header and body phases never overlap
    on the parser, so the timer is re-pointed at the current phase's deadline
    at the end of each ``data_received`` (a keep-alive request that arrives in
    one read creates no timer at all). Use :func:`guarded_protocol` to set the
    limits.
    """

    header_timeout: ClassVar[float] = 10.0
    body_timeout: ClassVar[float] = 60.0
    max_connections: ClassVar[int] = 10_000
    #: Paths whose bodies stream (``POST /items``): the body deadline is the
    #: time between two reads, and does not run while the app is not reading.
    streaming_paths: ClassVar[frozenset[str]] = frozenset()

    # Monotonic time of the last "connection cap reached" warning, per class.
    _cap_warned_at: ClassVar[float] = -math.inf

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._phase = _Phase.IDLE
        self._deadline = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._timer_deadline = 0.0
        self._streaming = False

    # asyncio protocol interface

    def connection_made(  # type: ignore[override]
        self, transport: asyncio.Transport
    ) -> None:
        if len(self.connections) >= self.max_connections:
            self._reject(transport)
            return
        super().connection_made(transport)
        self._enter(_Phase.HEADERS, self.header_timeout)
        self._sync_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._phase = _Phase.DONE
        self._cancel_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._phase is _Phase.DONE:
            return
        if self._phase is _Phase.IDLE:
            # The first byte of the next request (even stray CRLFs, which the
            # parser skips without starting a message) starts its header clock.
            self._enter(_Phase.HEADERS, self.header_timeout)
        elif self._phase is _Phase.BODY and self._streaming:
            self._deadline = self.loop.time() + self.body_timeout
        try:
            super().data_received(data)
        finally:
            self._sync_timer()

    def handle_websocket_upgrade(self) -> None:
        # The transport is handed to the WebSocket protocol, which never calls
        # back into this object: drop the deadline now.
        self._phase = _Phase.DONE
        self._cancel_timer()
        super().handle_websocket_upgrade()

    # httptools parser callbacks (all run inside data_received)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._phase is not _Phase.HEADERS:
            # A pipelined request starting in the same read as the end of the
            # previous one; otherwise the clock already runs since the first
            # byte (or since connection open).
            self._enter(_Phase.HEADERS, self.header_timeout)

    def on_headers_complete(self) -> None:
        self._enter(_Phase.BODY, self.body_timeout)
        super().on_headers_complete()
        self._streaming = self.scope.get("path") in self.streaming_paths

    def on_message_complete(self) -> None:
        self._phase = _Phase.IDLE
        super().on_message_complete()

    # Deadlines

    def _enter(self, phase: _Phase, timeout: float) -> None:
        self._phase = phase
        self._deadline = self.loop.time() + timeout

    def _sync_timer(self) -> None:
        """Point the timer at the current phase's deadline, or drop it."""
        if self._phase in (_Phase.IDLE, _Phase.DONE) or self.transport.is_closing():
            self._cancel_timer()
            return
        if self._timer is not None:
            if self._timer_deadline == self._deadline:
                return
            self._timer.cancel()
        self._timer_deadline = self._deadline
        self._timer = self.loop.call_at(self._deadline, self._on_deadline)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _on_deadline(self) -> None:
        self._timer = None
        phase = self._phase
        if phase not in (_Phase.HEADERS, _Phase.BODY) or self.transport.is_closing():
            return
        if phase is _Phase.BODY and self._streaming and self.flow.read_paused:
            # the app is behind, not the client: wait for it to read again
            self._enter(_Phase.BODY, self.body_timeout)
            self._sync_timer()
            return
        self._phase = _Phase.DONE
        cycle = self.cycle
        if phase is _Phase.HEADERS:
            # ``cycle`` is the previous request, if any; it may still be answering.
            answering = cycle is not None and not cycle.response_complete
        else:
            # ``cycle`` is the request whose body is late.
            answering = cycle is not None and cycle.response_started
        # A queued pipelined request means an earlier response is in progress.
        if not answering and not self.pipeline:
            self.transport.write(_REQUEST_TIMEOUT)
        if cycle is not None and not cycle.response_complete:
            # What connection_lost would do, but now: the app's receive()
            # returns http.disconnect and its send() becomes a no-op, so
            # nothing is written after the 408.
            cycle.disconnected = True
            cycle.message_event.set()
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s timeout, closing connection from %s", phase.name.lower(), self.client)
        self.transport.close()

    # Connection cap

    def _reject(self, transport: asyncio.Transport) -> None:
        # Not registered in self.connections; connection_lost still runs and
        # needs the transport. No flow control or parser state is set up.
        self.transport = transport
        self._phase = _Phase.DONE
        _discard_pending_input(transport)
        transport.write(_SERVICE_UNAVAILABLE)
        transport.close()
        now = self.loop.time()
        cls = type(self)
        if now - cls._cap_warned_at >= _CAP_WARNING_INTERVAL:
            cls._cap_warned_at = now
            logger.warning(
                "Connection cap of %d reached; refusing new connections with 503.",
                self.max_connections,
            )


def _discard_pending_input(transport: asyncio.Transport) -> None:
    """Read and drop what the client already sent on a plain TCP socket we are about to close.

    Closing a socket with unread input makes the kernel answer with RST instead
    of FIN, and many clients then report "connection reset" instead of the 503
    (most clients send their request right after connecting, so it is usually
    there by the time the connection is accepted). The transport has not started
    reading yet, so reading the descriptor directly takes nothing from it. TLS
    transports are left alone.
    """
    if transport.get_extra_info("sslcontext") is not None:
        return
    sock = transport.get_extra_info("socket")
    if sock is None:
        return
    try:
        fd = sock.fileno()
        if os.get_blocking(fd):  # never block the event loop
            return
        for _ in range(16):  # bounded: at most 1 MiB
            if not os.read(fd, 65536):
                return
    except OSError:  # BlockingIOError once drained; anything else: just close
        return


def guarded_protocol(
    header_timeout: float,
    body_timeout: float,
    max_connections: int,
    streaming_paths: frozenset[str] = frozenset(),
) -> type[GuardedHttpProtocol]:
    """A :class:`GuardedHttpProtocol` subclass with these limits, for ``uvicorn.Config(http=...)``.

    ``header_timeout`` and ``body_timeout`` are in seconds; ``max_connections``
    counts every open HTTP and WebSocket connection of the server; bodies sent
    to ``streaming_paths`` get ``body_timeout`` between two reads instead of
    in all.
    """
    for name, value in (("header_timeout", header_timeout), ("body_timeout", body_timeout)):
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
    if max_connections < 1:
        raise ValueError(f"max_connections must be at least 1, got {max_connections!r}")

    class ConfiguredGuardedHttpProtocol(GuardedHttpProtocol):
        pass

    ConfiguredGuardedHttpProtocol.header_timeout = float(header_timeout)
    ConfiguredGuardedHttpProtocol.body_timeout = float(body_timeout)
    ConfiguredGuardedHttpProtocol.max_connections = int(max_connections)
    ConfiguredGuardedHttpProtocol.streaming_paths = frozenset(streaming_paths)
    return ConfiguredGuardedHttpProtocol

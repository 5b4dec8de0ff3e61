"""Connection guards against a real uvicorn: header/body deadlines and the connection cap.

Each test starts uvicorn in a background thread (on an ephemeral port, on both
the asyncio and the uvloop event loop) with ``guarded_protocol`` and talks to
it over raw sockets, so the timings are the server's and not a client
library's.
"""

from __future__ import annotations

import asyncio
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket
from websockets.sync.client import connect as ws_connect

from memexd.server.protocol import GuardedHttpProtocol, _discard_pending_input, guarded_protocol

HEADER_TIMEOUT = 0.5
BODY_TIMEOUT = 0.5
MAX_CONNECTIONS = 20
# Slack for scheduling on a busy test machine; deadlines must fire after
# ``timeout - EARLY`` and before ``timeout + LATE``.
EARLY = 0.1
LATE = 1.0
REQUEST_TIMEOUT = b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"


@dataclass
class Served:
    port: int
    server: uvicorn.Server
    disconnects: list[str] = field(default_factory=list)

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=5)


def make_app(disconnects: list[str]) -> Starlette:
    async def echo(request: Request) -> Response:
        try:
            body = await request.body()
        except ClientDisconnect:
            disconnects.append(request.url.path)
            return Response(status_code=499)  # never sent: the client is gone
        return PlainTextResponse(str(len(body)))

    async def ok(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def slow(request: Request) -> Response:
        """Reads its body slowly (longer than the body deadline between two
        reads): the protocol pauses reading the socket meanwhile."""
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            await asyncio.sleep(BODY_TIMEOUT * 1.6)
        return PlainTextResponse(str(size))

    async def ws_echo(websocket: WebSocket) -> None:
        await websocket.accept()
        async for text in websocket.iter_text():
            await websocket.send_text(text)

    return Starlette(
        routes=[
            Route("/echo", echo, methods=["POST"]),
            Route("/stream", echo, methods=["POST"]),
            Route("/slow", slow, methods=["POST"]),
            Route("/", ok, methods=["GET"]),
            WebSocketRoute("/ws", ws_echo),
        ]
    )


ServeFactory = Callable[..., Served]


@pytest.fixture(params=["asyncio", "uvloop"])
def serve(request: pytest.FixtureRequest) -> Iterator[ServeFactory]:
    """Factory: a running uvicorn with the guarded protocol; stopped at teardown."""
    running: list[tuple[uvicorn.Server, threading.Thread]] = []

    def start(
        header_timeout: float = HEADER_TIMEOUT,
        body_timeout: float = BODY_TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
        streaming_paths: frozenset[str] = frozenset({"/stream", "/slow"}),
    ) -> Served:
        disconnects: list[str] = []
        config = uvicorn.Config(
            make_app(disconnects),
            host="127.0.0.1",
            port=0,  # the kernel picks a free port; read it back below
            http=guarded_protocol(
                header_timeout=header_timeout,
                body_timeout=body_timeout,
                max_connections=max_connections,
                streaming_paths=streaming_paths,
            ),
            loop=request.param,
            timeout_keep_alive=1,
            timeout_graceful_shutdown=2,
            lifespan="off",
            log_level="warning",
            log_config=None,  # leave the test process's logging alone
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, name="uvicorn-test", daemon=True)
        thread.start()
        running.append((server, thread))
        deadline = time.monotonic() + 5
        while not server.started:
            assert thread.is_alive(), "uvicorn failed to start"
            assert time.monotonic() < deadline, "uvicorn did not start within 5 s"
            time.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        return Served(port=port, server=server, disconnects=disconnects)

    yield start
    for server, _ in running:
        server.should_exit = True
    for _, thread in running:
        thread.join(timeout=5)
        assert not thread.is_alive(), "uvicorn did not shut down"


def read_until_closed(sock: socket.socket, timeout: float) -> bytes:
    """Everything the server sends until it closes; fails if it stays open."""
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            pytest.fail(f"connection still open after {timeout} s; got {b''.join(chunks)!r}")
        sock.settimeout(remaining)
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        except TimeoutError:
            continue
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


class Responses:
    """Reads HTTP/1.1 responses (with Content-Length) off a keep-alive socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.file = sock.makefile("rb")

    def next(self) -> tuple[int, bytes]:
        status_line = self.file.readline()
        assert status_line.startswith(b"HTTP/1.1 "), status_line
        length = 0
        while (line := self.file.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return int(status_line.split()[1]), self.file.read(length)


def get(path: str = "/") -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: test\r\n\r\n".encode()


def post(body: bytes, path: str = "/echo") -> bytes:
    head = f"POST {path} HTTP/1.1\r\nHost: test\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


def assert_in_time(elapsed: float, timeout: float) -> None:
    assert timeout - EARLY <= elapsed < timeout + LATE, f"closed after {elapsed:.3f} s"


def test_silent_connection_gets_408(serve: ServeFactory) -> None:
    served = serve()
    with served.connect() as sock:
        start = time.monotonic()
        data = read_until_closed(sock, timeout=HEADER_TIMEOUT + LATE)
        elapsed = time.monotonic() - start
    assert data.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), data
    assert b"Connection: close" in data
    assert_in_time(elapsed, HEADER_TIMEOUT)


def test_slowloris_headers_time_out(serve: ServeFactory) -> None:
    served = serve()
    request = get() + b"X-Padding: " + b"a" * 40 + b"\r\n\r\n"
    sent = 0
    data = b""
    with served.connect() as sock:
        start = time.monotonic()
        for byte in request:
            try:
                sock.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += 1
            readable, _, _ = select.select([sock], [], [], 0.2)
            if readable:
                data = read_until_closed(sock, timeout=LATE)
                break
        else:
            pytest.fail("the server read the whole slow request")
        elapsed = time.monotonic() - start
    assert sent >= 2, "the client should have kept sending"
    assert data.startswith(b"HTTP/1.1 408 "), data
    assert_in_time(elapsed, HEADER_TIMEOUT)


def test_incomplete_body_times_out(serve: ServeFactory) -> None:
    served = serve()
    with served.connect() as sock:
        start = time.monotonic()
        sock.sendall(
            b"POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\n" + b"x" * 10
        )
        data = read_until_closed(sock, timeout=BODY_TIMEOUT + LATE)
        elapsed = time.monotonic() - start
    assert data == REQUEST_TIMEOUT
    assert_in_time(elapsed, BODY_TIMEOUT)
    # The app waiting on the body saw the disconnect.
    deadline = time.monotonic() + 1
    while not served.disconnects and time.monotonic() < deadline:
        time.sleep(0.01)
    assert served.disconnects == ["/echo"]


def test_a_streaming_body_has_the_deadline_between_reads(serve: ServeFactory) -> None:
    served = serve()
    pieces = 6  # sent BODY_TIMEOUT * 0.6 apart: in all, well past BODY_TIMEOUT
    for path, whole in (("/stream", True), ("/echo", False)):
        with served.connect() as sock:
            head = f"POST {path} HTTP/1.1\r\nHost: t\r\nContent-Length: {pieces}\r\n\r\n"
            sock.sendall(head.encode())
            try:
                for _ in range(pieces):
                    time.sleep(BODY_TIMEOUT * 0.6)
                    sock.sendall(b"x")
            except OSError:
                assert not whole, "the streaming body was cut"
            data = read_until_closed(sock, timeout=BODY_TIMEOUT + LATE) if not whole else b""
            if whole:
                status, body = Responses(sock).next()
                assert (status, body) == (200, str(pieces).encode())
            else:
                assert data == REQUEST_TIMEOUT  # the whole body's deadline


def test_a_silent_streaming_body_times_out(serve: ServeFactory) -> None:
    served = serve()
    with served.connect() as sock:
        sock.sendall(b"POST /stream HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nxx")
        start = time.monotonic()
        data = read_until_closed(sock, timeout=BODY_TIMEOUT + LATE)
        assert data == REQUEST_TIMEOUT
        assert_in_time(time.monotonic() - start, BODY_TIMEOUT)


def test_a_streaming_body_waits_for_the_app_that_is_behind(serve: ServeFactory) -> None:
    """The app reads slowly, so the server stops reading the socket: that
    time is not the client's, however long it lasts."""
    served = serve()
    size = 200 * 1024  # a few reads of the app (64 KiB at most each), each past the deadline
    with served.connect() as sock:
        sock.sendall(post(b"x" * size, path="/slow"))
        status, body = Responses(sock).next()
    assert (status, body) == (200, str(size).encode())


def test_connection_cap_refuses_then_recovers(serve: ServeFactory) -> None:
    # A longer header timeout than the other tests so the checks made while
    # the idle connections hold the cap cannot race their 408s.
    header_timeout = 1.0
    served = serve(header_timeout=header_timeout)
    start = time.monotonic()
    idle = [served.connect() for _ in range(2 * MAX_CONNECTIONS)]
    try:
        # While the cap is held, a new connection is refused at once.
        with served.connect() as extra:
            refused = read_until_closed(extra, timeout=header_timeout / 2)
        assert refused.startswith(b"HTTP/1.1 503 Service Unavailable\r\n"), refused
        assert b"\r\nRetry-After: 1\r\n" in refused, refused
        # ... and so is one that sends its request straight away (it still
        # gets the 503, not just a reset).
        with served.connect() as eager:
            eager.sendall(get())
            refused = read_until_closed(eager, timeout=header_timeout / 2)
        assert refused.startswith(b"HTTP/1.1 503 Service Unavailable\r\n"), refused
        assert time.monotonic() - start < header_timeout - EARLY

        answers = [read_until_closed(sock, timeout=header_timeout + LATE) for sock in idle]
    finally:
        for sock in idle:
            sock.close()
    statuses = [answer[:12] for answer in answers]
    assert statuses.count(b"HTTP/1.1 503") == MAX_CONNECTIONS, statuses
    assert statuses.count(b"HTTP/1.1 408") == MAX_CONNECTIONS, statuses

    # The idle connections timed out: a normal request is served again (the
    # server may see a closed socket a moment after the client sees EOF).
    deadline = time.monotonic() + 1
    while True:
        with served.connect() as sock:
            sock.sendall(get())
            try:
                status, body = Responses(sock).next()
            except (AssertionError, ConnectionResetError):
                status, body = 0, b""
        if status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert (status, body) == (200, b"ok")


def test_keep_alive_requests_each_get_their_own_deadline(serve: ServeFactory) -> None:
    served = serve()
    with served.connect() as sock:
        responses = Responses(sock)
        start = time.monotonic()
        for i in range(20):
            if i % 2:
                sock.sendall(post(b"y" * i))
                assert responses.next() == (200, str(i).encode())
            else:
                sock.sendall(get())
                assert responses.next() == (200, b"ok")
            time.sleep(0.05)
        # Idle between requests for longer than the header timeout (but less
        # than the keep-alive timeout), then a request whose headers trickle
        # in over less than the header timeout: its clock starts at its first
        # byte, not at the end of the previous request.
        time.sleep(HEADER_TIMEOUT + 0.2)
        request = post(b"z" * 5)
        for part in (request[:10], request[10:30], request[30:]):
            sock.sendall(part)
            time.sleep(HEADER_TIMEOUT / 4)
        assert responses.next() == (200, b"5")
        assert time.monotonic() - start > 2 * HEADER_TIMEOUT
        # Between requests no deadline is pending on the server's side.
        connections = list(served.server.server_state.connections)
        assert len(connections) == 1
        [protocol] = connections
        assert isinstance(protocol, GuardedHttpProtocol)
        assert protocol._timer is None


def test_stray_bytes_after_a_response_start_the_header_clock(serve: ServeFactory) -> None:
    # uvicorn cancels its keep-alive timer on any data; a lone CRLF starts no
    # request in the parser, so without the guard this socket stayed open.
    served = serve()
    with served.connect() as sock:
        sock.sendall(get())
        assert Responses(sock).next() == (200, b"ok")
        start = time.monotonic()
        sock.sendall(b"\r\n")
        data = read_until_closed(sock, timeout=HEADER_TIMEOUT + LATE)
        elapsed = time.monotonic() - start
    assert data == REQUEST_TIMEOUT
    assert_in_time(elapsed, HEADER_TIMEOUT)


def test_large_body_at_full_speed(serve: ServeFactory) -> None:
    served = serve()
    body = b"b" * (1 << 20)
    with served.connect() as sock:
        sock.sendall(post(body))
        assert Responses(sock).next() == (200, str(len(body)).encode())


def test_websocket_upgrade_outlives_the_deadlines(serve: ServeFactory) -> None:
    served = serve()
    with ws_connect(f"ws://127.0.0.1:{served.port}/ws", open_timeout=5) as ws:
        ws.send("before")
        assert ws.recv(timeout=5) == "before"
        time.sleep(HEADER_TIMEOUT + BODY_TIMEOUT + 0.2)
        ws.send("after")
        assert ws.recv(timeout=5) == "after"


@pytest.mark.parametrize(
    ("header_timeout", "body_timeout", "max_connections"),
    [(0, 1, 1), (1, -1, 1), (float("inf"), 1, 1), (1, float("nan"), 1), (1, 1, 0)],
)
def test_factory_rejects_bad_limits(
    header_timeout: float, body_timeout: float, max_connections: int
) -> None:
    with pytest.raises(ValueError, match="must be"):
        guarded_protocol(header_timeout, body_timeout, max_connections)


def test_factory_classes_are_independent() -> None:
    short = guarded_protocol(header_timeout=1, body_timeout=2, max_connections=3)
    long = guarded_protocol(header_timeout=10, body_timeout=20, max_connections=30)
    assert (short.header_timeout, short.body_timeout, short.max_connections) == (1, 2, 3)
    assert (long.header_timeout, long.body_timeout, long.max_connections) == (10, 20, 30)
    assert issubclass(short, GuardedHttpProtocol)
    assert GuardedHttpProtocol.header_timeout == 10.0


class _SocketTransport:
    """Just enough of an asyncio transport for ``_discard_pending_input``."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def get_extra_info(self, name: str) -> Any:
        return {"socket": self.sock}.get(name)


def test_refused_connection_input_is_drained_so_close_sends_fin() -> None:
    server_side, client_side = socket.socketpair()
    with server_side, client_side:
        client_side.sendall(b"GET / HTTP/1.1\r\n" * 1_000)
        server_side.setblocking(False)
        _discard_pending_input(_SocketTransport(server_side))  # type: ignore[arg-type]
        with pytest.raises(BlockingIOError):
            server_side.recv(1)
        # A blocking socket is left alone rather than risk blocking the loop.
        server_side.setblocking(True)
        client_side.sendall(b"x")
        _discard_pending_input(_SocketTransport(server_side))  # type: ignore[arg-type]
        assert server_side.recv(1) == b"x"

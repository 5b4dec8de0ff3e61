"""A TLS terminator for the tests: the wheel's ``redis-server`` is built
without TLS, so a node or a Sentinel is put behind this, which takes TLS
connections on a port of its own and passes the bytes on, in plain, to the
node's port. With ``plain_too`` a connection that opens without a TLS
handshake is passed on as it is: the Sentinels check the node there in plain,
and report that address, where memexd then speaks TLS."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import threading
from dataclasses import dataclass

import trustme

#: A TLS handshake's first byte (a handshake record).
_HANDSHAKE = 0x16


@dataclass
class Certificates:
    """A CA, the engine's certificate (for 127.0.0.1) and memexd's."""

    ca: trustme.CA

    @classmethod
    def make(cls) -> Certificates:
        return cls(trustme.CA())

    def server(self, *, clients_must_prove: bool = False) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
        if clients_must_prove:
            self.ca.configure_trust(context)
            context.verify_mode = ssl.CERT_REQUIRED
        return context


class Terminator:
    """TLS on :attr:`port`, plain to ``target``; runs on a thread of its own."""

    def __init__(self, target: int, context: ssl.SSLContext, *, plain_too: bool = False) -> None:
        self.target, self.context, self.plain_too = target, context, plain_too
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.setblocking(False)
        self.port: int = self._listener.getsockname()[1]
        #: TLS connections made; handshakes that failed (a client that does
        #: not trust this certificate, or did not prove who it is)
        self.secured = self.refused = 0
        #: the connections' tasks (a task nothing holds may be collected)
        self._passing: set[asyncio.Task[None]] = set()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._serving = asyncio.run_coroutine_threadsafe(self._serve(), self._loop)

    def stop(self) -> None:
        self._serving.cancel()
        asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._listener.close()

    async def _close(self) -> None:
        for task in self._passing:
            task.cancel()
        await asyncio.gather(*self._passing, return_exceptions=True)

    async def _serve(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            conn, _ = await loop.sock_accept(self._listener)
            task = loop.create_task(self._pass(conn))
            self._passing.add(task)
            task.add_done_callback(self._passing.discard)

    async def _pass(self, conn: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        tls = not self.plain_too or await _opens_with_a_handshake(conn)
        reader = asyncio.StreamReader()
        protocol = asyncio.StreamReaderProtocol(reader)
        try:
            transport, _ = await loop.connect_accepted_socket(
                lambda: protocol, conn, ssl=self.context if tls else None
            )
        except (ssl.SSLError, OSError):
            self.refused += 1
            conn.close()
            return
        self.secured += tls
        writer = asyncio.StreamWriter(transport, protocol, reader, loop)
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pump(reader, up_writer), _pump(up_reader, writer))


async def _opens_with_a_handshake(conn: socket.socket) -> bool:
    loop = asyncio.get_running_loop()
    readable = loop.create_future()
    loop.add_reader(conn.fileno(), readable.set_result, None)
    try:
        await readable
    finally:
        loop.remove_reader(conn.fileno())
    first = conn.recv(1, socket.MSG_PEEK)
    return bool(first) and first[0] == _HANDSHAKE


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError, ssl.SSLError, asyncio.IncompleteReadError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    with contextlib.suppress(OSError, ssl.SSLError, RuntimeError):
        writer.close()

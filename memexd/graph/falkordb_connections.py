"""FalkorDB connections of one store: a command and what rides behind it.

A query takes a connection, sends its command (packed by
:mod:`memexd.graph.falkordb_wire`) and, for a write, the commands that follow
it in the same packet (:class:`After`: the ``WAITAOF`` or ``WAIT`` of a confirmed write,
the ``PUBLISH`` that announces it), and reads every reply before the
connection is used again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from redis.asyncio import ConnectionPool
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from memexd.graph import bookmarks
from memexd.graph.errors import EngineUnreachable, NotOnDisk, NotReplicated
from memexd.graph.falkordb_wire import pack

__all__ = ["After", "Connections", "replies"]

_ROLE = pack(["ROLE"])
#: How a packet's replies are read off its connection.
Reader = Callable[[AbstractConnection], Awaitable[Any]]
#: What a Sentinel-managed connection raises on ``READONLY``: the node it
#: took for the primary was demoted.
_DEMOTED = "The previous master is now a slave"


class Connections:
    """Connections to the engine, reused most recent first. How many exist
    is bounded by the :class:`Gate` in front: each query holds one."""

    def __init__(self, kind: type[AbstractConnection], options: dict[str, Any]) -> None:
        self._kind, self._options = kind, options
        self._make = partial(kind, **options)
        self._idle: list[AbstractConnection] = []
        self._all: list[AbstractConnection] = []
        #: busy when the engine was replaced: disconnected as they come back
        self._stale: set[AbstractConnection] = set()

    async def run(self, command: bytes, after: After | None = None) -> Any:
        """Send one packed command and read its reply, as redis-py's client
        does with no retries (errors come as redis-py raises them); with the
        commands ``after`` it in the same packet, once they have answered."""
        trailer = b"" if after is None else after.commands
        return await self._use(command + trailer, partial(replies, after=after))

    async def run_behind_role(self, command: bytes) -> tuple[list[Any], Any]:
        """``ROLE``, then a read-only command, in one packet: where the node
        stood just before the command ran (a replica's position) and the
        command's reply."""
        return await self._use(_ROLE + command, _role_and_reply)  # type: ignore[no-any-return]

    async def _use(self, packet: bytes, read: Reader) -> Any:
        if self._idle:
            connection = self._idle.pop()
        else:
            connection = self._make()
            self._all.append(connection)
        try:
            if not connection.is_connected:
                await connection.connect()  # type: ignore[no-untyped-call]
            await connection.send_packed_command(packet, check_health=False)
            reply = await read(connection)
        except (ResponseError, NotOnDisk, NotReplicated):
            self._idle.append(connection)  # every reply was read
            raise
        except BaseException:
            # redis-py drops the connection on a failed send or read (a late
            # reply would answer the next command); make sure of it
            try:
                with contextlib.suppress(Exception):
                    await connection.disconnect(nowait=True)
            finally:
                self._idle.append(connection)  # connects again when next used
            raise
        if self._stale and connection in self._stale:
            self._stale.discard(connection)
            await connection.disconnect()
        self._idle.append(connection)
        return reply

    def pool(self) -> ConnectionPool:
        """A pool of connections like these, for a client of its own."""
        return ConnectionPool(connection_class=self._kind, **self._options)

    async def drop_idle(self) -> None:
        """Disconnect the idle connections (they connect again when used;
        out of reach of other queries meanwhile), and the busy ones when
        their query ends."""
        idle, self._idle = self._idle, []
        self._stale = {c for c in self._all if c not in idle}
        try:
            for connection in idle:
                await connection.disconnect()
        finally:
            self._idle.extend(idle)

    async def close(self) -> None:
        for connection in self._all:
            await connection.disconnect()


@dataclass(frozen=True, slots=True)
class After:
    """Commands sent behind a write in its packet: its confirmations
    (``WAITAOF 1 0`` when ``disk``: the engine's own log on disk; ``WAIT``
    when ``replicas``: that many replicas have it), then a ``PUBLISH``."""

    commands: bytes
    disk: bool = False
    replicas: int = 0
    #: a ``ROLE`` too: the primary's replication position after the write,
    #: handed to the caller as a bookmark (reads from replicas)
    position: bool = False

    @classmethod
    def behind(
        cls, publish: bytes, *, disk: bool, replicas: int, timeout_ms: int, position: bool = False
    ) -> After:
        """What follows a write, confirmed as asked. A replica's own disk is
        not waited for: it fsyncs what it applies at once, but says so only
        at its next once-a-second report (``WAITAOF 1 1`` took 0.1-1 s a
        write, ``WAIT 1`` about 10 ms)."""
        confirm = pack(["WAITAOF", 1, 0, timeout_ms]) if disk else b""
        if replicas:
            confirm += pack(["WAIT", replicas, timeout_ms])
        return cls(confirm + (_ROLE if position else b"") + publish, disk, replicas, position)

    @property
    def count(self) -> int:
        return 1 + self.disk + (self.replicas > 0) + self.position


async def replies(connection: AbstractConnection, after: After | None) -> Any:
    """A command's reply, once every command ``after`` it has answered (all
    are read, whatever fails: an unread reply would answer the next command)."""
    try:
        answers = [await _settled(connection)]
    except RedisConnectionError as exc:
        if _DEMOTED in str(exc):  # redis-py's word for a READONLY answer: nothing was written
            raise EngineUnreachable(
                "the graph engine's primary had become a replica; nothing was written; try again"
            ) from exc
        raise
    answers += [await _settled(connection) for _ in range(after.count if after else 0)]
    for answer in answers:
        if isinstance(answer, ResponseError):
            raise answer
    if after is not None:
        rest = answers[1:]
        _confirmed(after, rest)
        if after.position:
            bookmarks.reached(int(rest[-2][1]))  # ROLE: ["master", offset, replicas]
    return answers[0]


def _confirmed(after: After, answers: list[Any]) -> None:
    """Raise unless the confirmations' ``answers`` say what ``after`` asked."""
    if after.disk:
        on_disk = answers[0]
        if not on_disk or int(on_disk[0]) < 1:
            raise NotOnDisk(
                "the engine did not confirm in time that the write reached its log on disk; "
                "it may or may not survive a restart of the engine"
            )
    held = answers[after.disk]
    if after.replicas and int(held) < after.replicas:
        raise NotReplicated(
            f"only {int(held)} of the {after.replicas} replica(s) required confirmed the "
            "write in time; it may or may not survive the loss of the primary"
        )


async def _role_and_reply(connection: AbstractConnection) -> tuple[list[Any], Any]:
    """``ROLE``'s answer and the command's (an error answered is returned:
    whether the node was behind decides first what it means)."""
    role = await _settled(connection)
    reply = await _settled(connection)
    if isinstance(role, ResponseError):
        raise role
    return role, reply


async def _settled(connection: AbstractConnection) -> Any:
    """The next reply, or the error the engine answered."""
    try:
        return await connection.read_response()
    except ResponseError as exc:
        return exc

"""FalkorDB connections of one store: a command and what rides behind it.

A query takes a connection, sends its command (packed by
:mod:`memexd.graph.falkordb_wire`) and, for a write, the commands that follow
it in the same packet (:class:`After`: the ``WAITAOF`` of a durable write,
the ``PUBLISH`` that announces it), and reads every reply before the
connection is used again.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from functools import partial
from typing import Any

from redis.asyncio import ConnectionPool
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ResponseError

from memexd.graph.errors import NotOnDisk

__all__ = ["After", "Connections", "replies"]


class Connections:
    """Connections to the engine, reused most recent first. How many exist
    is bounded by the :class:`Gate` in front: each query holds one."""

    def __init__(self, kind: type[AbstractConnection], options: dict[str, Any]) -> None:
        self._kind, self._options = kind, options
        self._make = partial(kind, **options)
        self._idle: list[AbstractConnection] = []
        self._all: list[AbstractConnection] = []

    async def run(self, command: bytes, after: After | None = None) -> Any:
        """Send one packed command and read its reply, as redis-py's client
        does with no retries (errors come as redis-py raises them); with the
        commands ``after`` it in the same packet, once they have answered."""
        if self._idle:
            connection = self._idle.pop()
        else:
            connection = self._make()
            self._all.append(connection)
        try:
            if not connection.is_connected:
                await connection.connect()  # type: ignore[no-untyped-call]
            trailer = b"" if after is None else after.commands
            await connection.send_packed_command(command + trailer, check_health=False)
            reply = await replies(connection, after)
        except (ResponseError, NotOnDisk):
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
        self._idle.append(connection)
        return reply

    def pool(self) -> ConnectionPool:
        """A pool of connections like these, for a client of its own."""
        return ConnectionPool(connection_class=self._kind, **self._options)

    async def drop_idle(self) -> None:
        """Disconnect the idle connections (they connect again when used);
        out of reach of other queries meanwhile."""
        idle, self._idle = self._idle, []
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
    """Commands sent behind a write in its packet: a ``WAITAOF`` first when
    ``confirmed``, then a ``PUBLISH``."""

    commands: bytes
    confirmed: bool

    @property
    def count(self) -> int:
        return 1 + self.confirmed


async def replies(connection: AbstractConnection, after: After | None) -> Any:
    """A command's reply, once every command ``after`` it has answered (all
    are read, whatever fails: an unread reply would answer the next command)."""
    answers = [await _settled(connection) for _ in range(1 + (after.count if after else 0))]
    for answer in answers:
        if isinstance(answer, ResponseError):
            raise answer
    if after is not None and after.confirmed:
        on_disk = answers[1]
        if not on_disk or int(on_disk[0]) < 1:
            raise NotOnDisk(
                "the engine did not confirm in time that the write reached its log on disk; "
                "it may or may not survive a restart of the engine"
            )
    return answers[0]


async def _settled(connection: AbstractConnection) -> Any:
    """The next reply, or the error the engine answered."""
    try:
        return await connection.read_response()
    except ResponseError as exc:
        return exc

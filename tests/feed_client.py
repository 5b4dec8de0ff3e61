"""A client of a running memexd's GraphQL: writes over HTTP, and the live
feed over a real WebSocket (graphql-transport-ws)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

__all__ = ["CREATE", "LOG", "PROTOCOL", "SUBSCRIBE", "Client", "Writer", "client", "ids"]

PROTOCOL = "graphql-transport-ws"
SUBSCRIBE = """subscription($f: EventFilter, $after: ID) {
  events(filter: $f, after: $after) { id namespace type payload } }"""
LOG = """query($f: EventFilter, $after: ID) {
  events(filter: $f, after: $after) { id namespace type payload } }"""
CREATE = (
    "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) { items { id } events { id } } }"
)


class Writer:
    """GraphQL over HTTP, as a client of the server under test."""

    def __init__(self, url: str, key: str | None = None) -> None:
        headers = {} if key is None else {"Authorization": f"Bearer {key}"}
        self.http = httpx.AsyncClient(base_url=url, headers=headers, timeout=60)

    async def ok(self, query: str, **variables: Any) -> dict[str, Any]:
        body = await self.http.post("/graphql", json={"query": query, "variables": variables})
        answer: dict[str, Any] = body.json()
        assert not answer.get("errors"), answer
        return answer["data"]  # type: ignore[no-any-return]

    async def create(self, *items: dict[str, Any]) -> tuple[list[str], list[str]]:
        """Item ids and event ids."""
        made = (await self.ok(CREATE, i=list(items)))["createItems"]
        return [i["id"] for i in made["items"]], [e["id"] for e in made["events"]]

    async def log(self, after: str, flt: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = (await self.ok(LOG, after=after, f=flt))["events"]
        return events


class Client:
    """A graphql-transport-ws client that answers the server's pings.

    With :meth:`listen`, a task reads the connection all the time, so pings
    are answered while the test is busy elsewhere (writing through a slow
    engine, say); without, only while the test waits in :meth:`recv`."""

    def __init__(self, ws: ClientConnection, *, answer_pings: bool = True) -> None:
        self.ws = ws
        self.answer_pings = answer_pings
        self._inbox: asyncio.Queue[dict[str, Any] | ConnectionClosed] | None = None
        self._reader: asyncio.Task[None] | None = None

    def listen(self) -> None:
        self._inbox = asyncio.Queue()
        self._reader = asyncio.create_task(self._read(self._inbox))

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def recv(self, timeout: float = 10) -> dict[str, Any]:
        """The next message other than a ping, within ``timeout`` seconds."""
        async with asyncio.timeout(timeout):
            if self._inbox is None:
                return await self._next()
            got = await self._inbox.get()
        if isinstance(got, ConnectionClosed):
            self._inbox.put_nowait(got)  # closed for every later read too
            raise got
        return got

    async def _next(self) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(await self.ws.recv())
            if message["type"] != "ping" or not self.answer_pings:
                return message
            await self.send({"type": "pong"})

    async def _read(self, inbox: asyncio.Queue[dict[str, Any] | ConnectionClosed]) -> None:
        try:
            while True:
                inbox.put_nowait(await self._next())
        except ConnectionClosed as closed:
            inbox.put_nowait(closed)

    async def subscribe(self, op: str, query: str = SUBSCRIBE, **variables: Any) -> None:
        await self.send({"id": op, "type": "subscribe",
                         "payload": {"query": query, "variables": variables}})  # fmt: skip

    async def events(self, count: int, op: str = "1") -> list[dict[str, Any]]:
        got: list[dict[str, Any]] = []
        while len(got) < count:
            message = await self.recv()
            assert message == {**message, "id": op, "type": "next"}, message
            got.append(message["payload"]["data"]["events"])
        return got

    async def nothing_more(self, seconds: float = 0.3) -> None:
        with pytest.raises(TimeoutError):
            await self.recv(seconds)


@asynccontextmanager
async def client(
    url: str, key: str | None = None, *, listen: bool = True, **options: Any
) -> AsyncIterator[Client]:
    """A connected, acknowledged client (reading all the time, unless ``listen``
    is false: then only when the test reads)."""
    init: dict[str, Any] = {"type": "connection_init"}
    if key is not None:
        init["payload"] = {"Authorization": f"Bearer {key}"}
    ws_url = url.replace("http://", "ws://") + "/graphql"
    async with connect(ws_url, subprotocols=[PROTOCOL], **options) as ws:  # type: ignore[list-item]
        feed = Client(ws)
        await feed.send(init)
        assert (await feed.recv())["type"] == "connection_ack"
        if listen:
            feed.listen()
        try:
            yield feed
        finally:
            await feed.close()


def ids(events: list[dict[str, Any]]) -> list[str]:
    return [e["id"] for e in events]

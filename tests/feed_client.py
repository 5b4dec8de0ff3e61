"""A client of a running memexd's GraphQL: writes over HTTP, and the live
feed over a real WebSocket (graphql-transport-ws)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

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
    """A graphql-transport-ws client that answers the server's pings."""

    def __init__(self, ws: ClientConnection, *, answer_pings: bool = True) -> None:
        self.ws = ws
        self.answer_pings = answer_pings

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def recv(self, timeout: float = 10) -> dict[str, Any]:
        """The next message other than a ping, within ``timeout`` seconds."""
        async with asyncio.timeout(timeout):
            while True:
                message: dict[str, Any] = json.loads(await self.ws.recv())
                if message["type"] != "ping" or not self.answer_pings:
                    return message
                await self.send({"type": "pong"})

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
async def client(url: str, key: str | None = None, **options: Any) -> AsyncIterator[Client]:
    init: dict[str, Any] = {"type": "connection_init"}
    if key is not None:
        init["payload"] = {"Authorization": f"Bearer {key}"}
    ws_url = url.replace("http://", "ws://") + "/graphql"
    async with connect(ws_url, subprotocols=[PROTOCOL], **options) as ws:  # type: ignore[list-item]
        feed = Client(ws)
        await feed.send(init)
        assert (await feed.recv())["type"] == "connection_ack"
        yield feed


def ids(events: list[dict[str, Any]]) -> list[str]:
    return [e["id"] for e in events]

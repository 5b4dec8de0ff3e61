"""Test support: a round-trip counting store and a typed GraphQL client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any
from unittest.mock import patch

import httpx

from memexd import graph as graphs
from memexd.access.keys import KeyStore
from memexd.graph import Graph
from memexd.integrity import traversal
from memexd.types import GraphStore, Params, Row


class CountingStore:
    """Delegates to a real store and counts database round trips."""

    def __init__(self, inner: GraphStore) -> None:
        self.inner = inner
        self.backend = inner.backend
        self.reads = 0
        self.writes = 0

    @property
    def round_trips(self) -> int:
        return self.reads + self.writes

    async def read(self, text: str, params: Params) -> list[Row]:
        self.reads += 1
        return await self.inner.read(text, params)

    async def write(self, text: str, params: Params) -> list[Row]:
        self.writes += 1
        return await self.inner.write(text, params)

    async def execute_ddl(self, text: str) -> None:
        await self.inner.execute_ddl(text)

    async def ping(self) -> None:
        await self.inner.ping()

    async def close(self) -> None:
        await self.inner.close()


class GraphQLFailed(AssertionError):
    pass


@dataclass
class Api:
    """What a test needs: the HTTP client, the counting store, and helpers.

    ``graph`` runs with every grant (for set-up and snapshots); ``keys`` is the
    app's key store; :meth:`as_key` gives a client that sends a credential.
    """

    client: httpx.AsyncClient
    store: CountingStore
    graph: Graph
    keys: KeyStore
    counter: int = field(default=0)
    headers: dict[str, str] = field(default_factory=dict)

    def as_key(self, credential: str | None) -> Api:
        """The same app, called with ``Authorization: Bearer <credential>``
        (``None``: without credentials)."""
        headers = {} if credential is None else {"Authorization": f"Bearer {credential}"}
        return replace(self, headers=headers)

    def with_grants(self, *grants: str, name: str | None = None) -> Api:
        """A client holding a new API key with these grants."""
        _, secret = self.keys.create(name or f"k{len(self.keys.records())}", grants)
        return self.as_key(secret)

    async def run(
        self, query: str, variables: dict[str, Any] | None = None, **headers: str
    ) -> dict[str, Any]:
        response = await self.client.post(
            "/graphql",
            json={"query": query, "variables": variables or {}},
            headers={**self.headers, **headers},
        )
        body: dict[str, Any] = response.json()
        return body

    async def ok(self, query: str, **variables: Any) -> dict[str, Any]:
        body = await self.run(query, variables)
        if body.get("errors"):
            raise GraphQLFailed(json.dumps(body["errors"], indent=1))
        data: dict[str, Any] = body["data"]
        return data

    async def codes(self, query: str, **variables: Any) -> list[str]:
        """The error codes of a request that must fail."""
        body = await self.run(query, variables)
        errors = body.get("errors") or []
        if not errors:
            raise GraphQLFailed(f"expected errors, got {body}")
        return [e.get("extensions", {}).get("code") for e in errors]

    async def create(self, **fields: Any) -> dict[str, Any]:
        """Create one item with sensible defaults; returns the item."""
        self.counter += 1
        item = {
            "scope": "test",
            "kind": "observation",
            "content": {"n": self.counter},
            "author": "user:test",
            "sourceKind": "observed",
            "authority": 0.5,
            **fields,
        }
        data = await self.ok(CREATE_ITEM, input=item)
        created: dict[str, Any] = data["createItem"]["item"]
        return created

    async def alive(self) -> None:
        """The service still answers, reads and writes (after a bad request)."""
        assert (await self.client.get("/healthz")).status_code == 200
        await self.create()
        await self.ok("{ items(limit: 1) { id createdAt } }")

    async def snapshot(self) -> tuple[list[str], list[str]]:
        """The whole graph, canonically: equal snapshots mean nothing changed."""
        nodes = await self.graph.read("admin_snapshot_nodes")
        rels = await self.graph.read("admin_snapshot_rels")
        return (
            sorted(json.dumps([sorted(r["labels"]), r["props"]], sort_keys=True) for r in nodes),
            sorted(json.dumps(r, sort_keys=True) for r in rels),
        )


ITEM_FIELDS = """
  id scope kind content author sourceKind parents authority conviction importance
  intentId taskId meta createdAt retracted
"""

CREATE_ITEM = f"""
mutation($input: MemoryItemInput!) {{
  createItem(input: $input) {{ item {{ {ITEM_FIELDS} }} events {{ id type payload }} }}
}}
"""


def created_ms(item: dict[str, Any]) -> int:
    """The ``created_at`` MemEX JSON carries for an item read over GraphQL:
    its UUIDv7 time in epoch ms."""
    return int(item["id"].replace("-", "")[:12], 16)


#: Federation's entity resolution, selecting a field or two of each entity type.
ENTITIES = """
query($r: [_Any!]!) {
  _entities(representations: $r) {
    __typename
    ... on MemoryItem { id content }
    ... on Edge { edgeId kind }
    ... on Intent { id label }
    ... on Task { id action }
  }
}
"""
#: A well-formed id that names nothing.
MISSING = "0190f0f0-0000-7000-8000-000000000000"


def reference(item_id: str) -> dict[str, str]:
    """A federation representation of a memory item."""
    return {"__typename": "MemoryItem", "id": item_id}


@contextmanager
def levelled(on: bool = True) -> Iterator[None]:
    """Walks level by level on every engine (``on``), as the windows of
    :mod:`memexd.integrity.traversal` walk them: no deep attempts (a budget
    of one path), no whole walks. Each engine's own way must answer the same."""
    if not on:
        yield
        return
    with patch.object(traversal, "BUDGET", 1), patch.object(graphs, "_WHOLE_WALKS", frozenset()):
        yield

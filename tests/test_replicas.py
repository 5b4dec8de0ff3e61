"""Stateless replicas: three ``memexd serve`` over one database, writers on
all three at once, cascades racing from two of them, a subscriber on each
receiving every event exactly once in log order, and a client reading its
own write through another replica with the bookmarks it was given."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from memexd.access.keys import KeyStore
from memexd.graph.bookmarks import HEADER
from tests.engines import Engine
from tests.feed_client import Writer, client, ids
from tests.processes import serve, stop

QUIET = {"MEMEXD_LOG_LEVEL": "warning"}
CASCADE = 'mutation($id: ID!) { cascadeRetract(id: $id, author: "u") { retracted } }'
EDGE = """mutation($a: ID!, $b: ID!) { createEdge(input: {from: $a, to: $b, kind: "SUPPORTS",
  author: "a", sourceKind: "o", authority: 0.5}) { edge { edgeId } } }"""


@dataclass
class Replicas:
    urls: list[str]
    key: str

    def writer(self, n: int) -> Writer:
        return Writer(self.urls[n], self.key)


@pytest.fixture
def replicas(shared_engine: Engine, tmp_path: Path) -> Iterator[Replicas]:
    """Three replicas sharing one engine and one key file; on Neo4j the third
    uses a ``neo4j://`` (routing) address, as a cluster would be reached."""
    keys = tmp_path / "keys.json"
    _, key = KeyStore(keys).create("admin", ["admin:"])
    running = []
    try:
        for n in range(3):
            env = {"MEMEXD_KEYS_FILE": str(keys), **QUIET}
            if n == 2 and shared_engine.neo4j is not None:
                env["MEMEXD_GRAPH_URI"] = shared_engine.neo4j.uri.replace("bolt://", "neo4j://")
            running.append(serve(tmp_path / f"replica-{n}", engine=shared_engine, **env))
        yield Replicas([url for url, _ in running], key)
    finally:
        for _, process in running:
            stop(process)


def item(n: int, **fields: Any) -> dict[str, Any]:
    return {"scope": "r/", "kind": "k", "content": {"n": n}, "author": "a", "sourceKind": "o",
            "authority": 0.5, **fields}  # fmt: skip


async def tree(writer: Writer, size: int) -> tuple[str, list[str]]:
    """A root and ``size`` items below it (each hangs off an earlier one)."""
    (root,), _ = await writer.create(item(0))
    made = [root]
    for n in range(1, size + 1):
        (child,), _ = await writer.create(item(n, parents=[made[(n - 1) // 2]]))
        made.append(child)
    return root, made


async def test_writers_and_racing_cascades_on_three_replicas_each_feed_every_event_once(
    replicas: Replicas,
) -> None:
    writers = [replicas.writer(n) for n in range(3)]
    (_,), (first,) = await writers[0].create(item(-1))
    root, doomed = await tree(writers[0], 30)
    async with (
        client(replicas.urls[0], replicas.key) as one,
        client(replicas.urls[1], replicas.key) as two,
        client(replicas.urls[2], replicas.key) as three,
    ):
        feeds = (one, two, three)
        for feed in feeds:
            await feed.subscribe("1", after=first)

        async def write(n: int) -> None:
            for batch in range(8):
                (a, b), _ = await writers[n].create(item(batch), item(batch))
                await writers[n].ok(EDGE, a=a, b=b)

        async def cascade(n: int) -> dict[str, Any]:
            sent = {"query": CASCADE, "variables": {"id": root}}
            answer: dict[str, Any] = (await writers[n].http.post("/graphql", json=sent)).json()
            return answer

        results = await asyncio.gather(write(0), write(1), write(2), cascade(1), cascade(2))
        log = await writers[0].log(first)
        for feed in feeds:
            assert ids(await feed.events(len(log))) == ids(log)  # every event once, in order
            await feed.nothing_more()

    answers = [r for r in results if r is not None]
    retracted = [x for a in answers if a.get("data") for x in
                 a["data"]["cascadeRetract"]["retracted"]]  # fmt: skip
    refused = [e["extensions"]["code"] for a in answers for e in a.get("errors") or []]
    assert sorted(retracted) == sorted(doomed)  # each item retracted by exactly one cascade
    assert set(refused) <= {"MEMORY_NOT_FOUND"}, refused
    gone = Counter(e["payload"]["item"]["id"] for e in log if e["type"] == "memory.retracted")
    assert {i: gone[i] for i in doomed} == dict.fromkeys(doomed, 1)
    created = [e for e in log if e["type"] == "memory.created"]
    assert len(created) == len(doomed) + 3 * 8 * 2  # the tree, then each writer's pairs


async def test_a_write_through_one_replica_is_read_through_another(replicas: Replicas) -> None:
    headers = {"Authorization": f"Bearer {replicas.key}"}
    create = {"query": "mutation($i: [MemoryItemInput!]!) { createItems(inputs: $i) "
                       "{ items { id } } }", "variables": {"i": [item(1)]}}  # fmt: skip
    async with httpx.AsyncClient(headers=headers, timeout=30) as http:
        written = await http.post(f"{replicas.urls[0]}/graphql", json=create)
        (made,) = written.json()["data"]["createItems"]["items"]
        token = written.headers.get(HEADER)
        back = {HEADER: token} if token else {}
        read = {"query": "query($id: ID!) { item(id: $id) { id } }", "variables": made}
        for url in replicas.urls[1:]:
            answer = await http.post(f"{url}/graphql", json=read, headers=back)
            assert answer.json() == {"data": {"item": made}}
    backend = httpx.get(f"{replicas.urls[0]}/healthz").json()["backend"]
    assert (token is not None) == (backend == "neo4j")  # only Neo4j has bookmarks

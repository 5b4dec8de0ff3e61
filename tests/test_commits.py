"""Group commit on Neo4j (:mod:`memexd.graph.commits`): writes that arrive
together share one transaction and one commit; a group the engine rolls back
is sent again statement by statement, so each caller gets its own answer and
nothing is half written."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from memexd.errors import ResourceExhausted, StorageError
from memexd.graph.commits import GroupCommit, RolledBack, Write
from memexd.graph.neo4j import Neo4jStore
from memexd.types import GraphStore, Params, Row

pytestmark = pytest.mark.engines("neo4j")

MAKE = "CREATE (p:Probe {n: $n}) RETURN p.n AS n"
COUNT = "MATCH (p:Probe) RETURN count(p) AS c, collect(p.n) AS ns"


class Counted:
    """Counts the groups a store commits, and their sizes."""

    def __init__(self, store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sizes: list[int] = []
        run = store._write_group

        async def counted(writes: list[Write]) -> list[list[Row]]:
            self.sizes.append(len(writes))
            return await run(writes)

        monkeypatch.setattr(store, "_write_group", counted)
        store._commits = GroupCommit(counted, store._write_alone)


def _neo4j(store: GraphStore) -> Neo4jStore:
    assert isinstance(store, Neo4jStore)
    return store


async def _probes(store: GraphStore) -> tuple[int, list[int]]:
    row = (await store.read(COUNT, {}))[0]
    return row["c"], sorted(row["ns"])


async def test_writes_at_once_share_a_commit_and_each_gets_its_rows(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted = Counted(_neo4j(store), monkeypatch)
    got = await asyncio.gather(*(store.write(MAKE, {"n": n}) for n in range(40)))
    assert got == [[{"n": n}] for n in range(40)]
    assert await _probes(store) == (40, list(range(40)))
    assert counted.sizes == [40]  # all queued in one turn of the loop: one transaction


async def test_a_failing_statement_fails_alone_and_nothing_is_half_written(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1/0 rolls its group back: the others are sent again alone and succeed,
    each once; the failing one gets its own error."""
    counted = Counted(_neo4j(store), monkeypatch)
    writes: list[Any] = [store.write(MAKE, {"n": n}) for n in range(10)]
    writes.insert(5, store.write("CREATE (p:Probe {n: -1}) RETURN 1 / $zero AS n", {"zero": 0}))
    got = await asyncio.gather(*writes, return_exceptions=True)
    assert isinstance(got[5], StorageError)
    assert [g for i, g in enumerate(got) if i != 5] == [[{"n": n}] for n in range(10)]
    assert await _probes(store) == (10, list(range(10)))  # the -1 never committed
    assert max(counted.sizes) > 1  # it was a group that rolled back


async def test_a_slow_statement_times_out_alone(store: GraphStore) -> None:
    """A group that outlives the time limit is rolled back; sent alone, only
    the slow statement runs out of time."""
    neo = _neo4j(store)
    neo._timeout = 0.5
    slow = "UNWIND range(1, 100000000) AS i WITH i WHERE i < 0 CREATE (:Probe {n: i}) RETURN 1 AS n"
    writes = [store.write(MAKE, {"n": n}) for n in range(6)]
    got = await asyncio.gather(writes[0], store.write(slow, {}), *writes[1:],
                               return_exceptions=True)  # fmt: skip
    assert isinstance(got[1], ResourceExhausted)
    assert [got[0], *got[2:]] == [[{"n": n}] for n in range(6)]
    assert await _probes(store) == (6, list(range(6)))


async def test_a_rolled_back_group_goes_again_one_by_one() -> None:
    """The queue's own rule, with no engine: RolledBack means each alone."""
    alone: list[str] = []

    async def group(writes: list[Write]) -> list[list[Row]]:
        raise RolledBack("deadlock")

    async def one(text: str, params: Params) -> list[Row]:
        await asyncio.sleep(0)
        alone.append(text)
        if text == "bad":
            raise StorageError("no")
        return [{"t": text}]

    commits = GroupCommit(group, one)
    got = await asyncio.gather(*(commits.write(t, {}) for t in ("a", "b", "bad", "c")),
                               return_exceptions=True)  # fmt: skip
    assert [got[0], got[1], got[3]] == [[{"t": "a"}], [{"t": "b"}], [{"t": "c"}]]
    assert isinstance(got[2], StorageError)
    assert alone == ["a", "b", "bad", "c"]


async def test_an_unknown_outcome_is_every_callers_answer() -> None:
    async def group(writes: list[Write]) -> list[list[Row]]:
        raise ConnectionResetError("gone during the commit")

    async def one(text: str, params: Params) -> list[Row]:
        await asyncio.sleep(0.01)  # the others arrive meanwhile
        return [{"t": text}]

    commits = GroupCommit(group, one)
    first = asyncio.ensure_future(commits.write("first", {}))
    await asyncio.sleep(0)
    rest = await asyncio.gather(*(commits.write(t, {}) for t in "xyz"), return_exceptions=True)
    assert await first == [{"t": "first"}]
    assert all(isinstance(r, ConnectionResetError) for r in rest)

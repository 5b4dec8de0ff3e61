"""Neo4j 5 through the official async driver (Bolt / neo4j:// routing).

FalkorDB runs the writes to a graph one at a time, and memexd's statements
are written for that: a command reads what it depends on and writes in the
same statement. Neo4j runs transactions concurrently under read-committed
isolation, where a statement's reads take no locks, so two commands could
both pass a version check and both write. Each write transaction here first
takes the write lock of the event log's counter (every command logs events,
so every command would take it before committing anyway): writes are
serialized as on FalkorDB, and what a command reads after the lock is the
latest committed state. Reads stay concurrent, in read transactions (which a
``neo4j://`` cluster routes to followers).

Causal consistency across replicas rides on Neo4j bookmarks: see
:mod:`memexd.graph.bookmarks`.
"""

from __future__ import annotations

import asyncio
import random
import re

import neo4j
import neo4j.exceptions as neo

from memexd.graph import bookmarks
from memexd.graph.commits import GroupCommit, RolledBack, Write
from memexd.graph.cypher import Queries
from memexd.graph.errors import neo4j_errors
from memexd.graph.gate import Gate
from memexd.graph.packed import Packer
from memexd.types import Params, Row

__all__ = ["Neo4jStore"]

# Pin the dialect: the files are written for Cypher 5.
_PREFIX = "CYPHER 5 "
#: Transient failures that roll the whole transaction back (sending it again
#: is safe), and how often to try.
_RETRY_CODES = ("DeadlockDetected", "LockClientStopped", "Transaction.Outdated")
_ATTEMPTS = 8
#: Schema statements that create an index (a constraint brings one too).
_CREATES_INDEX = re.compile(r"^\s*CREATE\b.*\b(INDEX|CONSTRAINT)\b", re.IGNORECASE | re.DOTALL)
#: What Neo4j answers for a text it will not compile (a packed read whose
#: subquery returns a column without a name).
_UNCOMPILED = ("Statement.SyntaxError", "Statement.SemanticError")


class Neo4jStore:
    """A :class:`memexd.types.GraphStore` on one Neo4j database.

    At most ``pool_size`` connections; a query that waits longer than
    ``pool_wait_ms`` for one fails with ``UNAVAILABLE``. Writes are never sent
    twice after a connection broke mid-flight (their outcome is unknown);
    transactions the engine rolled back for a deadlock are.
    """

    backend = "neo4j"

    def __init__(
        self,
        driver: neo4j.AsyncDriver,
        database: str | None,
        timeout_ms: int | None,
        gate: Gate | None = None,
    ) -> None:
        self._driver = driver
        self._gate = gate or Gate(64, 5.0)
        self._database = database
        self._timeout = timeout_ms / 1000 if timeout_ms else None
        # this process's own writes are followed by its reads, on a cluster too
        self._bookmarks = neo4j.AsyncGraphDatabase.bookmark_manager()
        queries = Queries("neo4j")
        self._lock = _PREFIX + queries.get("write_lock").text + "\n"
        self._await_indexes = _PREFIX + queries.get("indexes_await").text
        self._packer = Packer()
        self._commits = GroupCommit(self._write_group, self._write_alone)

    @classmethod
    def connect(
        cls,
        uri: str,
        *,
        user: str | None,
        password: str | None,
        database: str | None = None,
        timeout_ms: int | None = None,
        pool_size: int = 64,
        pool_wait_ms: int = 5_000,
    ) -> Neo4jStore:
        auth = (user or "neo4j", password or "") if (user or password) else None
        driver = neo4j.AsyncGraphDatabase.driver(
            uri,
            auth=auth,
            max_connection_pool_size=pool_size,
            # the gate in front makes queries wait (and fail) before the pool does
            connection_acquisition_timeout=pool_wait_ms / 1000 + 60,
            connection_timeout=5.0,
            # nothing retries behind our back: see write()
            max_transaction_retry_time=0.0,
            # queries are logged by memexd itself; the driver's notices are noise
            warn_notification_severity=None,
            notifications_min_severity="OFF",
        )
        return cls(driver, database, timeout_ms, Gate(pool_size, pool_wait_ms / 1000))

    async def read(self, text: str, params: Params) -> list[Row]:
        # one auto-commit transaction: a round trip less than an explicit one;
        # its rows as one record (memexd.graph.packed)
        with neo4j_errors(self._timeout):
            packed = self._packer.packed(text)
            if packed is not None:
                try:
                    rows, _ = await self._run(neo4j.READ_ACCESS, _PREFIX + packed.text, params)
                    return packed.unpack(rows)
                except neo.ClientError as exc:
                    if not any(code in (exc.code or "") for code in _UNCOMPILED):
                        raise
                    self._packer.refuse(text)
            return await self._read(text, params)

    async def _read(self, text: str, params: Params) -> list[Row]:
        rows, columns = await self._run(neo4j.READ_ACCESS, _PREFIX + text, params)
        self._packer.learn(text, columns)
        return rows

    async def write(self, text: str, params: Params) -> list[Row]:
        # writes arriving together commit together (memexd.graph.commits)
        return await self._commits.write(self._lock + text, params)

    async def _write_alone(self, text: str, params: Params) -> list[Row]:
        with neo4j_errors(self._timeout):
            for attempt in range(1, _ATTEMPTS + 1):
                try:
                    return (await self._run(neo4j.WRITE_ACCESS, text, params))[0]
                except neo.TransientError as exc:
                    if attempt == _ATTEMPTS or not _rolled_back(exc):
                        raise
                await asyncio.sleep(random.uniform(0, 0.002 * attempt))  # noqa: S311
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _write_group(self, writes: list[Write]) -> list[list[Row]]:
        """The statements in one transaction, one commit; RolledBack if the
        engine rolled it back (each is then sent alone)."""
        with neo4j_errors(self._timeout):
            await self._gate.enter()
            try:
                async with self._session(neo4j.WRITE_ACCESS) as session:
                    try:
                        answers = await _together(session, writes, self._timeout)
                    except neo.Neo4jError as exc:  # the engine's answer: nothing written
                        raise RolledBack(str(exc.code)) from exc
                    bookmarks.seen(await session.last_bookmarks())
                    return answers
            finally:
                self._gate.leave()

    async def _run(self, mode: str, text: str, params: Params) -> tuple[list[Row], tuple[str, ...]]:
        """The rows of one auto-commit transaction, and their columns."""
        await self._gate.enter()
        try:
            async with self._session(mode) as session:
                result = await session.run(neo4j.Query(text, timeout=self._timeout), dict(params))
                rows, columns = await _rows(result)
                bookmarks.seen(await session.last_bookmarks())
                return rows, columns
        finally:
            self._gate.leave()

    async def execute_ddl(self, text: str) -> None:
        with neo4j_errors():
            async with self._session(neo4j.WRITE_ACCESS) as session:
                await (await session.run(_PREFIX + text)).consume()
                if _CREATES_INDEX.match(text):
                    # Neo4j fills a new index in the background; until it is
                    # online, queries on it find nothing
                    await (await session.run(self._await_indexes)).consume()

    async def ping(self) -> None:
        with neo4j_errors():
            await self._driver.verify_connectivity()

    async def close(self) -> None:
        await self._commits.drain()
        await self._driver.close()

    def _session(self, mode: str) -> neo4j.AsyncSession:
        return self._driver.session(
            database=self._database,
            default_access_mode=mode,
            bookmarks=bookmarks.given(),
            bookmark_manager=self._bookmarks,
        )


async def _together(
    session: neo4j.AsyncSession, writes: list[Write], timeout: float | None
) -> list[list[Row]]:
    """Each statement's rows, all in one transaction, committed once."""
    answers = []
    async with await session.begin_transaction(timeout=timeout) as tx:
        for write in writes:
            answers.append((await _rows(await tx.run(write.text, dict(write.params))))[0])
        await tx.commit()
    return answers


async def _rows(result: neo4j.AsyncResult) -> tuple[list[Row], tuple[str, ...]]:
    """The rows of a result as they came, and their columns. Not
    ``result.data()``: it walks every value in Python to turn nodes into maps
    (memexd returns none), which took 10,000 item records 0.4 s longer."""
    columns = tuple(result.keys())
    return [dict(zip(columns, values, strict=True)) for values in await result.values()], columns


def _rolled_back(exc: neo.TransientError) -> bool:
    """Whether the engine rolled the transaction back (a deadlock): safe to send again."""
    return any(code in (exc.code or "") for code in _RETRY_CODES)

"""Neo4j 5 through the official async driver (Bolt / neo4j:// routing)."""

from __future__ import annotations

from typing import Any

import neo4j

from memexd.graph.errors import neo4j_errors
from memexd.types import Params, Row

__all__ = ["Neo4jStore"]

# Pin the dialect: the files are written for Cypher 5.
_PREFIX = "CYPHER 5 "


class Neo4jStore:
    """A :class:`memexd.types.GraphStore` on one Neo4j database."""

    backend = "neo4j"

    def __init__(
        self, driver: neo4j.AsyncDriver, database: str | None, timeout_ms: int | None
    ) -> None:
        self._driver = driver
        self._database = database
        self._timeout = timeout_ms / 1000 if timeout_ms else None

    @classmethod
    def connect(
        cls,
        uri: str,
        *,
        user: str | None,
        password: str | None,
        database: str | None = None,
        timeout_ms: int | None = None,
    ) -> Neo4jStore:
        auth = (user or "neo4j", password or "") if (user or password) else None
        driver = neo4j.AsyncGraphDatabase.driver(uri, auth=auth)
        return cls(driver, database, timeout_ms)

    async def read(self, text: str, params: Params) -> list[Row]:
        with neo4j_errors():
            async with self._session(neo4j.READ_ACCESS) as session:
                return await session.execute_read(self._work, _PREFIX + text, dict(params))

    async def write(self, text: str, params: Params) -> list[Row]:
        with neo4j_errors():
            async with self._session(neo4j.WRITE_ACCESS) as session:
                return await session.execute_write(self._work, _PREFIX + text, dict(params))

    async def execute_ddl(self, text: str) -> None:
        with neo4j_errors():
            async with self._session(neo4j.WRITE_ACCESS) as session:
                result = await session.run(text)
                await result.consume()

    async def ping(self) -> None:
        with neo4j_errors():
            await self._driver.verify_connectivity()

    async def close(self) -> None:
        await self._driver.close()

    def _session(self, mode: str) -> neo4j.AsyncSession:
        return self._driver.session(database=self._database, default_access_mode=mode)

    async def _work(
        self, tx: neo4j.AsyncManagedTransaction, text: str, params: dict[str, Any]
    ) -> list[Row]:
        # run() accepts a Query (for the timeout) although its stub says str
        query: Any = neo4j.Query(text, timeout=self._timeout)
        result = await tx.run(query, params)
        return await result.data()

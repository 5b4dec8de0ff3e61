"""Versioned schema migrations, per backend, recorded in the graph.

``migrations/<backend>/NNNN_name.cypher`` holds ``;``-separated statements;
``NNNN_name.constraints`` (FalkorDB only) lists ``Label property`` pairs for
unique constraints, which FalkorDB creates with a command, not Cypher.
Statements are idempotent: an index that already exists is not an error.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable

from memexd.errors import SchemaExists
from memexd.graph import Graph
from memexd.graph.falkordb import FalkorStore
from memexd.graph.keys import property_names

__all__ = ["Migration", "discover", "migrate", "pending"]

log = logging.getLogger("memexd.migrate")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    source: Traversable

    @property
    def is_constraints(self) -> bool:
        return self.source.name.endswith(".constraints")

    def statements(self) -> list[str]:
        text = self.source.read_text(encoding="utf-8")
        if self.is_constraints:
            lines = (line.split("#", 1)[0].strip() for line in text.splitlines())
            return [line for line in lines if line]
        body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
        return [s.strip() for s in body.split(";") if s.strip()]


def discover(backend: str) -> list[Migration]:
    folder = resources.files("memexd.migrations").joinpath(backend)
    found = []
    for entry in folder.iterdir():
        stem, _, suffix = entry.name.partition(".")
        if suffix not in {"cypher", "constraints"}:
            continue
        number, _, name = stem.partition("_")
        found.append(Migration(int(number), name, entry))
    return sorted(found, key=lambda m: m.version)


#: A statement that returns ``changed`` is a batch of a backfill.
_BATCHED = re.compile(r"\bAS\s+changed\s*$")


async def pending(graph: Graph) -> list[Migration]:
    done = {int(row["version"]) for row in await graph.read("migration_applied")}
    return [m for m in discover(graph.backend) if m.version not in done]


async def migrate(graph: Graph, upto: int | None = None) -> list[Migration]:
    """Apply pending migrations in order (those up to version ``upto``, when
    given); return the ones applied."""
    applied = []
    if graph.backend == "falkordb":
        # replicas attached now number property names as the primary does
        await graph.write("keys_register", {"keys": dict.fromkeys(property_names(), 0)})
        await graph.write("keys_unregister", {})
    for migration in await pending(graph):
        if upto is not None and migration.version > upto:
            break
        for statement in migration.statements():
            try:
                await _run(graph, migration, statement)
            except SchemaExists:
                log.debug("migration %04d: already in place: %s", migration.version, statement)
        await graph.write(
            "migration_record",
            {
                "version": migration.version,
                "name": migration.name,
                "applied_at": time.time_ns() // 1_000_000,
            },
        )
        log.info("applied migration %04d_%s", migration.version, migration.name)
        applied.append(migration)
    if any(m.is_constraints for m in applied) and isinstance(graph.store, FalkorStore):
        # FalkorDB logs each constraint command twice in its append-only file,
        # and replaying the copy fails at every start; compaction drops it.
        await graph.store.compact()
    return applied


async def _run(graph: Graph, migration: Migration, statement: str) -> None:
    if _BATCHED.search(statement):
        # a backfill in batches (each under the query time limit at any
        # size): run until a batch changes nothing
        while (await graph.store.write(statement, {}))[0]["changed"]:
            pass
        return
    if not migration.is_constraints:
        await graph.store.execute_ddl(statement)
        return
    if not isinstance(graph.store, FalkorStore):
        raise TypeError(f"{migration.source.name}: constraint files are FalkorDB-only")
    label, prop = statement.split()
    await graph.store.create_unique(label, prop)

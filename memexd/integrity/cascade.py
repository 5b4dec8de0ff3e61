"""Cascade retraction: an item and everything that depends on it, at once.

The closure is found by a linear walk, then retracted by one statement that
also takes the children a concurrent writer added to doomed items since the
walk (a few levels deep). If the closure changed in a way it cannot absorb,
the statement writes nothing and the walk starts over. So when both finish,
every live item whose parent the cascade retracted was created after it.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import replace

from memexd.concurrency import compare_and_set
from memexd.errors import MemoryNotFound
from memexd.events import vocabulary as ev
from memexd.events.vocabulary import Event, Origin, event_props
from memexd.graph import Graph
from memexd.ids import new_id
from memexd.integrity.provenance import Provenance
from memexd.integrity.traversal import Walk, post_order
from memexd.memory.records import present
from memexd.memory.validation import check_prose, check_text, check_uuid

__all__ = ["Cascade"]

#: Event ids on hand for children a concurrent writer adds during the cascade.
_SPARE = 64


class Cascade:
    def __init__(self, graph: Graph, provenance: Provenance) -> None:
        self.graph = graph
        self.provenance = provenance

    async def retract(
        self, item_id: str, author: str, reason: str | None, origin: Origin
    ) -> tuple[list[str], list[Event]]:
        item_id = check_uuid(item_id)
        author = check_text(author, "author")
        reason = check_prose(reason, "reason")

        async def attempt() -> tuple[list[str], list[Event]] | None:
            async with self.provenance.slots:
                reach = await self.provenance.complete([item_id], Walk.CHILDREN, "cascade")
            if not reach.found:
                raise MemoryNotFound(item_id)
            order = post_order(item_id, reach.links())
            done = await self._write(order, author, reason, origin)
            if done is None:
                await self._check_writable(order)
            return done

        return await compare_and_set(attempt, f"the cascade from {item_id}")

    async def _check_writable(self, order: list[str]) -> None:
        """After a failed write: ``FORBIDDEN`` if the caller may read but not
        write part of the closure (what it cannot read is never walked)."""
        found = await self.provenance.reads.fetch(order)
        self.graph.access.require_write(*(item.scope for item in found.values()))

    async def _write(
        self, order: list[str], author: str, reason: str | None, origin: Origin
    ) -> tuple[list[str], list[Event]] | None:
        events = [ev.memory_retracted(i, author, reason, origin) for i in order]
        spare = [new_id() for _ in range(_SPARE)]
        ts = time.time_ns() // 1_000_000
        rows = await self.graph.write(
            "cascade_retract",
            {
                "ids": order,
                "events": [event_props(e) for e in events],
                "token": uuid.uuid4().hex,
                "spare": spare,
                "payload": list(ev.memory_retracted_template(author, reason)),
                "ts": ts,
                "origin": _origin_props(origin),
            },
        )
        if not rows or not rows[0]["ok"]:
            return None
        absorbed = [
            replace(ev.memory_retracted(i, author, reason, origin), id=event_id, ts=ts, scope=scope)
            for (i, scope), event_id in zip(rows[0]["absorbed"], spare, strict=False)
        ]
        return [e.subject or "" for e in absorbed] + order, absorbed + events


def _origin_props(origin: Origin) -> dict[str, str]:
    return present({"trace_id": origin.trace_id, "cause_id": origin.cause_id})

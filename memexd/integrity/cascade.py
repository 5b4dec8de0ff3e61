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

from memexd.errors import MemoryNotFound, StorageError
from memexd.events.log import Origin, make_event
from memexd.graph import Graph
from memexd.ids import check_uuid, new_id
from memexd.integrity.provenance import Provenance
from memexd.integrity.traversal import Walk, post_order
from memexd.memory.meta import dump_json
from memexd.memory.model import Event
from memexd.memory.reads import ItemReads
from memexd.memory.records import event_props
from memexd.memory.validation import check_text
from memexd.types import JSONObject

__all__ = ["Cascade"]

_ATTEMPTS = 20
#: Event ids on hand for children a concurrent writer adds during the cascade.
_SPARE = 64


class Cascade:
    def __init__(self, graph: Graph, provenance: Provenance, reads: ItemReads) -> None:
        self.graph = graph
        self.provenance = provenance
        self.reads = reads

    async def retract(
        self, item_id: str, author: str, reason: str | None, origin: Origin
    ) -> tuple[list[str], list[Event]]:
        item_id = check_uuid(item_id)
        payload: JSONObject = {"author": check_text(author, "author")}
        if reason is not None:
            payload["reason"] = reason
        for _ in range(_ATTEMPTS):
            reach = await self.provenance.complete(item_id, Walk.CHILDREN, "cascade")
            if not reach.found:
                raise MemoryNotFound(item_id)
            order = post_order(item_id, reach.links())
            done = await self._write(order, payload, origin)
            if done is not None:
                return done
        raise StorageError(f"cascade from {item_id} kept racing with concurrent writers")

    async def _write(
        self, order: list[str], payload: JSONObject, origin: Origin
    ) -> tuple[list[str], list[Event]] | None:
        events = [self._event(i, payload, origin) for i in order]
        spare = [new_id() for _ in range(_SPARE)]
        ts = time.time_ns() // 1_000_000
        rows = await self.graph.write(
            "cascade_retract",
            {
                "ids": order,
                "events": [event_props(e) for e in events],
                "token": uuid.uuid4().hex,
                "spare": spare,
                "tail": dump_json(payload)[1:],
                "ts": ts,
                "origin": _origin_props(origin),
            },
        )
        if not rows or not rows[0]["ok"]:
            return None
        absorbed = [
            replace(self._event(i, payload, origin), id=event_id, ts=ts, scope=scope)
            for (i, scope), event_id in zip(rows[0]["absorbed"], spare, strict=False)
        ]
        return [e.subject or "" for e in absorbed] + order, absorbed + events

    @staticmethod
    def _event(item_id: str, payload: JSONObject, origin: Origin) -> Event:
        return make_event("memory.retracted", {"item_id": item_id, **payload}, origin,
                          subject=item_id)  # fmt: skip


def _origin_props(origin: Origin) -> dict[str, str]:
    props = {"trace_id": origin.trace_id, "cause_id": origin.cause_id}
    return {k: v for k, v in props.items() if v is not None}

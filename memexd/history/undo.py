"""Undo by trace (SPEC §14): take back everything one command did.

Every HTTP request has a trace id (``memexd.server.origin.TraceIds``) and
every event its command logs carries it. ``undoTrace`` reads what the trace
did, plans the way back (items it created are retracted with the edges
touching them, items it changed get back the record they had before its
first change, edges it made are retracted) and writes it in one statement
(``bulk_apply``, the bulk transforms' write) at the versions read, with the
record of the undo. A later command of another trace that changed, linked
or built on what the trace touched stops the undo: the report names each,
and nothing is written; a dry run reports the plan and writes nothing.

Undone events name the trace they take back in their ``cause_id`` (the undo's
own trace is theirs), and their ``cause_type`` is ``trace.undo`` (a retracted
item keeps it beside its memory.retracted event).
Only creations, updates and new edges are taken back: a trace that retracted,
archived, unlinked or changed an edge is refused whole.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import orjson

from memexd.concurrency import compare_and_set
from memexd.errors import BadUserInput, Conflict, Forbidden
from memexd.events import vocabulary as ev
from memexd.events.vocabulary import Event, Origin, Why
from memexd.graph import Graph
from memexd.memory.model import Edge, Item
from memexd.memory.records import (
    edge_from_row,
    item_from_json,
    item_from_row,
    item_props,
    nulls_apart,
)
from memexd.memory.retraction import Doomed, Retraction, RetractionEvents, placement
from memexd.memory.validation import check_flag, check_prose, check_text

__all__ = ["MAX_UNDO", "UNDO_CAUSE", "Undo", "UndoReport"]

#: The cause_type of the events an undo logs.
UNDO_CAUSE = "trace.undo"
#: At most this many events of one trace are taken back in one write.
MAX_UNDO = 200_000
_UNDOABLE = frozenset({"memory.created", "memory.updated", "edge.created"})
#: Subjects one conflict statement checks.
_CHUNK = 20_000
_ANOTHER = "another command"


@dataclass(frozen=True, slots=True)
class UndoReport:
    trace_id: str
    dry_run: bool
    retracted_item_ids: list[str]
    restored_item_ids: list[str]
    retracted_edge_ids: list[str]
    conflicts: list[str]
    events: Sequence[Event]


@dataclass(frozen=True, slots=True)
class _Did:
    """What a trace did: each subject with the trace's first position on it."""

    created: dict[str, int]
    updated: dict[str, int]
    edges: dict[str, int]


class Undo:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.retraction = Retraction(graph)

    async def trace(self, trace_id: Any, author: Any, reason: Any, dry_run: Any,
                    origin: Origin) -> UndoReport:  # fmt: skip
        trace = _checked_trace(trace_id)
        why = Why(check_text(author, "author"), check_prose(reason, "reason"))
        dry = check_flag(dry_run, "dryRun")
        did = await self._did(trace)
        # the undo's events name the trace they take back
        undoing = Origin(trace_id=origin.trace_id, cause_id=trace)

        async def attempt() -> UndoReport | None:
            return await self._attempt(trace, did, dry, why, undoing)

        return await compare_and_set(attempt, "the undo")

    async def _not_undone(self, trace: str) -> None:
        if await self.graph.read("undo_find", {"trace": trace}):
            raise Conflict(f"trace {trace} was undone already")

    async def _did(self, trace: str) -> _Did:
        rows = await self.graph.read("trace_did", {"trace": trace, "limit": MAX_UNDO + 1})
        if len(rows) > MAX_UNDO:
            raise BadUserInput(f"the trace logged more than {MAX_UNDO} events", field="traceId")
        if not rows:
            raise BadUserInput("no command with this trace id changed memory",
                               field="traceId")  # fmt: skip
        if not all(r["seen"] for r in rows):
            raise Forbidden("the trace changed memory outside your grants")
        other = sorted({r["type"] for r in rows} - _UNDOABLE)
        if other:
            raise BadUserInput(f"the trace did what an undo does not take back "
                               f"({', '.join(other)}); only creations, updates and new edges "
                               "are", field="traceId")  # fmt: skip
        did = _Did({}, {}, {})
        for row in sorted(rows, key=lambda r: int(r["seq"])):
            into = {"memory.created": did.created, "memory.updated": did.updated,
                    "edge.created": did.edges}[row["type"]]  # fmt: skip
            into.setdefault(row["subject"], int(row["seq"]))
        for item in did.created:  # an item it made and then changed: retracted, not restored
            did.updated.pop(item, None)
        return did

    async def _attempt(self, trace: str, did: _Did, dry: bool, why: Why,
                       origin: Origin) -> UndoReport | None:  # fmt: skip
        # every attempt: a racing undo of the trace may have won the write
        await self._not_undone(trace)
        conflicts = await self._conflicts(trace, did)
        doomed = await self.retraction.plan(list(did.created))
        conflicts += self._linked(did, doomed)
        gone = [i for i in did.created if i not in doomed]
        conflicts += [f"item {i}: retracted since (by another command)" for i in gone]
        restored = await self._before(did.updated)
        current = await self._current(list(did.updated))
        relinked = [
            i for i, b in restored.items() if i in current and current[i][0].parents != b.parents
        ]
        if relinked:  # its PARENT links would need relinking too, which this write does not do
            raise BadUserInput(f"the trace changed the parents of {relinked[0]}: an undo does "
                               "not take parents back", field="traceId")  # fmt: skip
        touched = {e.edge_id for d in doomed.values() for e, _ in d.edges}
        alone = await self._edges([e for e in did.edges if e not in touched])
        conflicts += [f"edge {e}: retracted since" for e in did.edges
                      if e not in touched and e not in alone]  # fmt: skip
        scopes = [d.scope for d in doomed.values()] + [i.scope for i, _ in current.values()]
        scopes += [i.scope for i in restored.values()] + [s for _, _, ss in alone.values()
                                                          for s in ss]  # fmt: skip
        for scope in scopes:
            if not self.graph.access.can_write(scope):
                raise Forbidden.write(scope)
        if conflicts or dry:
            return _report(trace, dry, did, list(doomed), list(restored), conflicts, [])
        events = self._events(doomed, restored, alone, origin, why)
        if not await self._write(doomed, restored, current, alone, events, trace, origin):
            return None
        readable = [e for e in events if all(self.graph.access.can_read(s)
                                             for s in e.scopes or ())]  # fmt: skip
        return _report(trace, False, did, list(doomed), list(restored), [], readable)

    async def _conflicts(self, trace: str, did: _Did) -> list[str]:
        subjects = [{"id": i, "seq": s, "created": part is did.created}
                    for part in (did.created, did.updated, did.edges)
                    for i, s in part.items()]  # fmt: skip
        out = []
        for start in range(0, len(subjects), _CHUNK):  # each statement well within the timeout
            params = {"subjects": subjects[start : start + _CHUNK], "trace": trace}
            for row in await self.graph.read("trace_later", params):
                found = [*row["later"], *row["children"]]
                found += [row["retraction"]] if row["retraction"] else []
                out += [_conflict(row["id"], *entry) for entry in found]
        return out

    def _linked(self, did: _Did, doomed: dict[str, Doomed]) -> list[str]:
        """Edges another command linked to an item the trace created: any
        live edge touching it that the trace did not make."""
        can_read = self.graph.access.can_read
        return [_conflict(d.id, "edge", e.edge_id, _ANOTHER, all(can_read(s) for s in scopes))
                for d in doomed.values() for e, scopes in d.edges
                if e.edge_id not in did.edges]  # fmt: skip

    async def _before(self, updated: dict[str, int]) -> dict[str, Item]:
        """The record each item had before the trace first changed it."""
        subjects = [{"id": i, "seq": s} for i, s in updated.items()]
        rows = (
            await self.graph.read("item_record_before", {"subjects": subjects}) if subjects else []
        )
        if not all(r["seen"] for r in rows if r["payload"] is not None):
            raise Forbidden("the trace changed items from records you cannot read")
        return {r["id"]: item_from_json(orjson.loads(r["payload"])["item"])
                for r in rows if r["payload"] is not None}  # fmt: skip

    async def _current(self, ids: list[str]) -> dict[str, tuple[Item, int]]:
        if not ids:
            return {}
        rows = await self.graph.read("item_get", {"ids": ids, "include_retracted": False})
        return {
            r["item"]["id"]: (item_from_row(r["item"]), int(r["item"]["version"])) for r in rows
        }

    async def _edges(self, ids: list[str]) -> dict[str, tuple[Edge, int, tuple[str, str]]]:
        """Live edges by id, with their versions and the scopes of their ends."""
        if not ids:
            return {}
        rows = await self.graph.read("edge_get", {"ids": ids})
        edges = {r["edge"]["edge_id"]: (edge_from_row(r["edge"]), int(r["edge"]["version"]))
                 for r in rows}  # fmt: skip
        ends = {end for e, _ in edges.values() for end in (e.from_id, e.to_id)}
        scopes = await self.graph.read("item_get", {"ids": list(ends), "include_retracted": False})
        scope = {r["item"]["id"]: r["item"]["scope"] for r in scopes}
        return {i: (e, v, (scope[e.from_id], scope[e.to_id])) for i, (e, v) in edges.items()}

    def _events(self, doomed: Any, restored: dict[str, Item],
                alone: dict[str, tuple[Edge, int, tuple[str, str]]], origin: Origin,
                why: Why) -> list[Event]:  # fmt: skip
        events: list[Event] = list(RetractionEvents(list(doomed), doomed, origin, why,
                                                    UNDO_CAUSE))  # fmt: skip
        events += [_undoing(ev.memory_updated(i, origin, why)) for i in restored.values()]
        events += [_undoing(ev.edge_retracted(e, origin, why, scopes=s))
                   for e, _, s in alone.values()]  # fmt: skip
        return events

    async def _write(self, doomed: Any, restored: dict[str, Item],
                     current: dict[str, tuple[Item, int]],
                     alone: dict[str, tuple[Edge, int, tuple[str, str]]], events: list[Event],
                     trace: str, origin: Origin) -> bool:  # fmt: skip
        updates = []
        for item_id, before in restored.items():
            if item_id not in current:
                return False  # retracted since the conflicts were read: read again
            now, version = current[item_id]
            props, removed = nulls_apart(_restoring(now, before))
            updates.append({"id": item_id, "version": version, "props": props,
                            "removed": removed, "created": ev.creation_record(now),
                            "reembed": now.content != before.content})  # fmt: skip
        kept, logged = placement(events)
        # each doomed item's live children, all doomed too (another's is a conflict)
        children = Counter(p for d in doomed.values() for p in set(d.parents) if p in doomed)
        params = {
            "updates": updates,
            "doomed": [{"id": i, "version": d.version, "event_id": kept[i][0], "at": kept[i][1],
                        "children": children.get(i, 0)} for i, d in doomed.items()],
            "edge_ids": sorted({e.edge_id for d in doomed.values() for e, _ in d.edges}),
            "unlinked": [{"edge_id": i, "version": v} for i, (_, v, _) in alone.items()],
            "undo": {"trace": trace, "by": origin.trace_id, "at": events[0].ts if events else 0},
            **logged,
        }  # fmt: skip
        rows = await self.graph.write("bulk_apply", params)
        return bool(rows) and bool(rows[0]["ok"])


def _conflict(subject: str, what: str, other: str, by: str | None, seen: bool) -> str:
    """One later change, named when the caller may read it."""
    if not seen:
        return f"{subject}: a later change by another command, to something you cannot read"
    return f"{subject}: {what} {other} by {by or 'a command without a trace'} came after"


def _checked_trace(value: Any) -> str:
    if not isinstance(value, str) or not ev.TRACE_ID.fullmatch(value):
        raise BadUserInput("must be a trace id (1 to 128 of A-Z a-z 0-9 . _ : -)", field="traceId")
    return value


def _restoring(now: Item, before: Item) -> dict[str, Any]:
    """Node properties that take ``now`` back to ``before``: every stored
    property of the record, and ``None`` for those ``now`` has and it had not."""
    then = item_props(before)
    gone = {k: None for k in item_props(now) if k not in then}
    then.pop("version", None)  # the statement moves the version on
    then.pop("retracted", None)
    return {**gone, **then}


def _undoing(event: Event) -> Event:
    payload = None if event.payload is None else {**event.payload, "cause_type": UNDO_CAUSE}
    return replace(event, payload=payload, payload_json=None)


def _report(trace: str, dry: bool, did: _Did, retracted: list[str], restored: list[str],
            conflicts: list[str], events: Sequence[Event]) -> UndoReport:  # fmt: skip
    return UndoReport(trace, dry, retracted, restored, list(did.edges), conflicts, events)

"""Context blocks (SPEC §11): what an agent reads at the start of its work.

A block is text of at most ``max_bytes`` UTF-8 bytes, in four sections in
this order: Project profile, Summaries, Task context, Discoveries. Each item
sits in one section: the items of the task, session or intent asked for in
Task context; of the others, kind ``summary`` in Summaries, kind
``discovery`` in Discoveries, and ``PROJECT`` items in the profile (items
that are none of these are left out). Each section reads its newest items
(or highest decay score, or best recalled for a cue), ties by id; lines are
taken from the sections in turn (one from each, then the next one from each)
while they fit, so a long profile never crowds out the task. The same graph
and input give the same bytes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from memexd.errors import BadUserInput
from memexd.memory.filters import MemoryFilter
from memexd.memory.model import Item, SortKey
from memexd.memory.reads import ItemReads
from memexd.memory.usage import Usage, check_half_life
from memexd.memory.validation import check_limit, check_opt_uuid, check_optional_text
from memexd.recall.model import summary
from memexd.recall.service import Recall, RecallRequest

__all__ = ["MAX_BYTES", "MIN_BYTES", "Block", "ContextRequest", "Contexts", "Section"]

DEFAULT_BYTES = 4096
#: A line is at most LINE_BYTES; a block holds at least a heading and a line.
LINE_BYTES = 240
MIN_BYTES = 256
MAX_BYTES = 65_536
#: Items each section reads (a 64 KB block holds about 400 short lines).
PER_SECTION = 100
#: The bytes of the shortest line, ``- [<id>] (<date>): `` and its newline: a
#: block of ``max_bytes`` holds no more lines than this divides, so no
#: section reads more.
SHORTEST_LINE = 56
PROFILE_LIMIT = 20
TITLES = ("Project profile", "Summaries", "Task context", "Discoveries")


@dataclass(frozen=True, slots=True)
class ContextRequest:
    scope_prefix: Any = None
    session_id: Any = None
    task_id: Any = None
    intent_id: Any = None
    cue: Any = None
    max_bytes: Any = None
    sort_by_decay: Any = None
    track_access: Any = None
    half_life_ms: Any = None
    now: int | None = None


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    items: list[Item]


@dataclass(frozen=True, slots=True)
class Block:
    text: str
    sections: list[Section]
    accessed: int = 0
    items: list[Item] = field(default_factory=list)

    @property
    def bytes(self) -> int:
        return len(self.text.encode())


class Contexts:
    def __init__(self, reads: ItemReads, recall: Recall, usage: Usage) -> None:
        self.reads, self.recall, self.usage = reads, recall, usage

    async def block(self, r: ContextRequest) -> Block:
        budget = _budget(r.max_bytes)
        check_half_life(r.half_life_ms, 1.0)  # refused whether or not decay sorts
        filters = _filters(r)
        # the sections are independent reads: the engine runs them side by side
        top = min(PER_SECTION, budget // SHORTEST_LINE)
        candidates = await asyncio.gather(*(self._section(f, r, top) for f in filters))
        chosen = _fit(candidates, budget)
        block = render([Section(t, items) for t, items in zip(TITLES, chosen, strict=True)])
        if r.track_access is True:
            return Block(block.text, block.sections, await self.usage.track(
                [i.id for i in block.items]), block.items)  # fmt: skip
        return block

    async def profile(self, scope_prefix: Any, tag: str | None, limit: Any) -> Block:
        """The Project profile alone: its newest ``limit`` items (20 unless given)."""
        top = PROFILE_LIMIT if limit is None else check_limit(limit, "limit", maximum=PER_SECTION)
        flt = MemoryFilter(scope_prefix=scope_prefix, lifecycle=["PROJECT"],
                           tags_all=None if tag is None else [tag])  # fmt: skip
        items = await self.reads.find(flt, [SortKey("recency")], top)
        return render([Section(TITLES[0], items)])

    async def _section(self, flt: MemoryFilter | None, r: ContextRequest, top: int) -> list[Item]:
        """The section's first ``top`` items in its order."""
        if flt is None:
            return []
        if r.cue is not None:
            hits = await self.recall.recall(RecallRequest(r.cue, flt, top, now=r.now))
            return [h.item for h in hits]
        if r.sort_by_decay is True:
            half_life = check_half_life(r.half_life_ms, self.reads.limits.decay_half_life_ms)
            return await self.reads.find(flt, [SortKey("decay")], top, now_ms=r.now,
                                         half_life_ms=half_life)  # fmt: skip
        return await self.reads.find(flt, [SortKey("recency")], top, now_ms=r.now)


def _budget(max_bytes: Any) -> int:
    if max_bytes is None:
        return DEFAULT_BYTES
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int):
        raise BadUserInput("must be an integer", field="maxBytes")
    if not MIN_BYTES <= max_bytes <= MAX_BYTES:
        raise BadUserInput(f"must be from {MIN_BYTES} (a heading and one line) to {MAX_BYTES}",
                           field="maxBytes")  # fmt: skip
    return max_bytes


def _filters(r: ContextRequest) -> list[MemoryFilter | None]:
    """Each section's filter, in SPEC order; None: the section is empty."""
    prefix = check_optional_text(r.scope_prefix, "scopePrefix")
    own = [f for f in (
        None if r.task_id is None else MemoryFilter(task_id=check_opt_uuid(r.task_id, "taskId")),
        None if r.session_id is None else MemoryFilter(session_id=r.session_id),
        None if r.intent_id is None
        else MemoryFilter(intent_id=check_opt_uuid(r.intent_id, "intentId")),
    ) if f is not None]  # fmt: skip
    task = MemoryFilter(scope_prefix=prefix, or_=own) if own else None
    elsewhere = MemoryFilter(or_=own) if own else None
    kinds = [MemoryFilter(kind="summary"), MemoryFilter(kind="discovery")]
    return [
        MemoryFilter(scope_prefix=prefix, lifecycle=["PROJECT"],
                     not_=MemoryFilter(or_=[*kinds, *([elsewhere] if elsewhere else [])])),
        MemoryFilter(scope_prefix=prefix, kind="summary", not_=elsewhere),
        task,
        MemoryFilter(scope_prefix=prefix, kind="discovery", not_=elsewhere),
    ]  # fmt: skip


def _fit(sections: Sequence[list[Item]], budget: int) -> list[list[Item]]:
    """Lines taken from the sections in turn while they fit (headings counted)."""
    chosen: list[list[Item]] = [[] for _ in sections]
    left = budget
    for depth in range(max((len(s) for s in sections), default=0)):
        for n, items in enumerate(sections):
            if depth >= len(items) or len(chosen[n]) < depth:
                continue  # this section already stopped
            cost = len(line(items[depth]).encode()) + 1
            if not chosen[n]:
                cost += len(_heading(TITLES[n], first=not any(chosen)).encode())
            if cost <= left:
                chosen[n].append(items[depth])
                left -= cost
    return chosen


def render(sections: list[Section]) -> Block:
    parts: list[str] = []
    for s in sections:
        if s.items:
            parts.append(_heading(s.title, first=not parts))
            parts.extend(line(i) + "\n" for i in s.items)
    items = [i for s in sections for i in s.items]
    return Block("".join(parts), sections, 0, items)


def _heading(title: str, *, first: bool) -> str:
    return f"{'' if first else chr(10)}## {title}\n"


def line(item: Item) -> str:
    """``- [id] (date): first line of content``, at most LINE_BYTES bytes."""
    day = datetime.fromtimestamp(item.created_at / 1000, UTC).strftime("%Y-%m-%d")
    head = f"- [{item.id}] ({day}): "
    text = summary(item.content, 1000)
    room = LINE_BYTES - len(head.encode())
    if len(text.encode()) > room:
        text = text.encode()[: room - 3].decode(errors="ignore").rstrip() + "…"
    return head + text

"""Memory items in GraphQL: the ``MemoryItem`` type, its inputs and results.

Nested fields read through the per-request loaders, so N items with their
parents cost one database round trip per nesting level.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import strawberry
from memexd.schema.common import Direction, IncludeArchived, Info, flat
from memexd.schema.events import Event
from memexd.schema.filters import epoch_ms
from memexd.schema.lifecycle import TAGS, AccessStats, Lifecycle, Priority, value
from strawberry.scalars import JSON

from memexd.events.vocabulary import Event as EventRecord
from memexd.ids import ms_to_datetime
from memexd.integrity.trust import Trusted
from memexd.memory.archive import shown
from memexd.memory.lifecycle import tiering
from memexd.memory.model import Item, ItemPatch, NewItem
from memexd.memory.usage import check_half_life
from memexd.recall.model import summary

if TYPE_CHECKING:
    from memexd.schema.edges import Edge
    from memexd.schema.intents import Intent, Task

__all__ = ["ItemResult", "ItemsResult", "MemoryItem", "MemoryItemInput", "MemoryItemPatch"]

_Edge = Annotated["Edge", strawberry.lazy("memexd.schema.edges")]
_Intent = Annotated["Intent", strawberry.lazy("memexd.schema.intents")]
_Task = Annotated["Task", strawberry.lazy("memexd.schema.intents")]


@strawberry.federation.type(
    keys=["id"], description="A belief: content with provenance, trust scores and scope."
)
class MemoryItem:
    id: strawberry.ID = strawberry.field(description="UUIDv7; its time is the creation time.")
    scope: str = strawberry.field(
        description="Where the belief applies, e.g. `project:acme`; filter by prefix."
    )
    kind: str = strawberry.field(description="What sort of belief: `observation`, `fact`, …")
    content: JSON = strawberry.field(description="The belief itself: any JSON object.")
    author: str = strawberry.field(description="Who asserted it: `user:…`, `agent:…`, `system:…`.")
    source_kind: str = strawberry.field(
        description="How it was obtained: `user_explicit`, `observed`, `agent_inferred`, …"
    )
    parents: list[strawberry.ID] = strawberry.field(
        description="Ids it was derived from, in order; may name ids that do not exist."
    )
    authority: float = strawberry.field(description="How much to trust the source, in [0, 1].")
    conviction: float | None = strawberry.field(
        description="How sure the author is, in [0, 1]; absent counts as 0 when sorting and "
        "scoring, and is outside every filter range."
    )
    importance: float | None = strawberry.field(
        description="How much it matters, in [0, 1]; absent counts as 0 when sorting and "
        "scoring, and is outside every filter range."
    )
    intent_id: strawberry.ID | None = strawberry.field(description="The intent it serves.")
    task_id: strawberry.ID | None = strawberry.field(description="The task that produced it.")
    meta: JSON | None = strawberry.field(
        description="Free-form JSON object; dot paths are filterable (`meta`, `metaHas`)."
    )
    created_at: datetime = strawberry.field(description="Creation time, read from the id.")
    retracted: bool = strawberry.field(
        description="Retracted items are tombstones, invisible unless asked for."
    )
    lifecycle: Lifecycle = strawberry.field(
        description='Its tier (default PROJECT); kept in `meta.memexd` (README, "Lifecycle").'
    )
    priority: Priority = strawberry.field(description="Its priority (default P2).")
    tags: list[str] = strawberry.field(description="Its tags, unique and sorted.")
    session_id: str | None = strawberry.field(
        description="The session it belongs to: `meta.session_id`."
    )
    access: AccessStats = strawberry.field(
        description="How often it was read with access tracking, and when last."
    )
    archived: bool = strawberry.field(
        description="Archived items are left out of every read unless asked for (`item(id)` "
        "still answers)."
    )

    @classmethod
    def of(cls, item: Item) -> MemoryItem:
        return cls(**{name: field(item) for name, field in _FIELDS.items()})

    @classmethod
    def all(cls, items: list[Item]) -> list[MemoryItem]:
        """Items whose fields are read when selected (a walk's thousands are
        often asked for their ids only: 8.7 µs an item made eagerly)."""
        return [_Selected(i) for i in items]

    @classmethod
    async def resolve_reference(cls, info: Info, key: str) -> MemoryItem | None:
        """A federation reference: null when missing, retracted or unreadable."""
        item = await info.context.loaders.items.load(key)
        return None if item is None else cls.of(item)

    @classmethod
    async def listed(
        cls, info: Info, ids: Sequence[str] | None, include_archived: bool | None = True
    ) -> list[MemoryItem]:
        """The live readable items among ``ids``, in list order, once each
        (through the per-request loader); archived ones unless asked for."""
        found = await info.context.loaders.items.load_many(list(dict.fromkeys(ids or ())))
        return cls.all(shown([item for item in found if item is not None], include_archived))

    @strawberry.field(
        description="One line of the content, for lists and graph labels: its first line of "
        'text (README, "Recall": how content becomes text), at most `maxChars` characters '
        "(1 to 1,000; an ellipsis ends a cut line)."
    )
    def summary(
        self,
        max_chars: Annotated[
            int, strawberry.argument(description="The longest line to return (1 to 1,000).")
        ] = 80,
    ) -> str:
        return summary(self.content, max_chars)

    @strawberry.field(
        description='recency * (1 + access) * importance (SPEC §11; README, "Lifecycle"), '
        "computed by the database: recency = exp(-age / halfLifeMs), access = ln(1 + count) "
        "/ 10, importance 2, 1.5, 1, 0.5 for P0 to P3."
    )
    async def decay_score(
        self,
        info: Info,
        now: Annotated[
            datetime | None, strawberry.argument(description="The instant (the server's clock).")
        ] = None,
        half_life_ms: Annotated[
            float | None,
            strawberry.argument(description="The half-life (MEMEXD_DECAY_HALF_LIFE_MS: 30 days)."),
        ] = None,
    ) -> float:
        half_life = check_half_life(half_life_ms, info.context.memex.settings.decay_half_life_ms)
        loader = info.context.loaders.decay_scores(epoch_ms(now, "now"), half_life)
        return await loader.load(self.id)

    @strawberry.field(description="Live parents that exist, in the order `parents` lists them.")
    async def parent_items(
        self, info: Info, include_archived: IncludeArchived = False
    ) -> list[MemoryItem]:
        return await MemoryItem.listed(info, self.parents, include_archived)

    @strawberry.field(description="Live items that list this one as a parent.")
    async def children(
        self, info: Info, include_archived: IncludeArchived = False
    ) -> list[MemoryItem]:
        found = await info.context.loaders.children.load(self.id)
        return MemoryItem.all(shown(found, include_archived))

    @strawberry.field(description="Direct aliases: live items joined by an active ALIAS edge.")
    async def aliases(
        self, info: Info, include_archived: IncludeArchived = False
    ) -> list[MemoryItem]:
        found = await info.context.loaders.aliases.load(self.id)
        return MemoryItem.all(shown(found, include_archived))

    @strawberry.field(
        description="Live items on the other side of active CONTRADICTS edges (never itself)."
    )
    async def contradicted_by(
        self, info: Info, include_archived: IncludeArchived = False
    ) -> list[MemoryItem]:
        found = await info.context.loaders.contradicted_by.load(self.id)
        return MemoryItem.all(shown(found, include_archived))

    @strawberry.field(
        description="Authority weighed along provenance (SPEC §14): the weakest link of the "
        "best support path, halved for each active contradiction by a more authoritative item."
    )
    async def effective_authority(self, info: Info) -> float:
        return (await self._trusted(info)).value

    @strawberry.field(description="The best support path, root first, ending at this item.")
    async def trust_path(self, info: Info) -> list[MemoryItem]:
        found = await info.context.loaders.items.load_many(list((await self._trusted(info)).path))
        return MemoryItem.all([i for i in found if i is not None])

    async def _trusted(self, info: Info) -> Trusted:
        # a retracted item (read with includeRetracted) is no link of any path
        found = await info.context.loaders.trust.load(self.id)
        return Trusted(self.authority, (self.id,)) if found is None else found

    @strawberry.field(description="The intent it serves, if it exists and is readable.")
    async def intent(self, info: Info) -> _Intent | None:
        from memexd.schema.intents import Intent  # here: that module imports this one

        if self.intent_id is None:
            return None
        return Intent.of(await info.context.loaders.intents.load(self.intent_id))

    @strawberry.field(description="The task that produced it, if it exists and is readable.")
    async def task(self, info: Info) -> _Task | None:
        from memexd.schema.intents import Task

        if self.task_id is None:
            return None
        return Task.of(await info.context.loaders.tasks.load(self.task_id))

    @strawberry.field(description="Edges touching this item (active ones unless told).")
    async def edges(
        self,
        info: Info,
        direction: Annotated[
            Direction | None, strawberry.argument(description="Which way the edges point.")
        ] = Direction.BOTH,
        kind: Annotated[
            str | None, strawberry.argument(description="Only edges of this kind.")
        ] = None,
        active_only: Annotated[
            bool, strawberry.argument(description="Leave out deactivated edges.")
        ] = True,
    ) -> list[_Edge]:
        from memexd.schema.edges import Edge  # here: that module imports this one

        way = (direction or Direction.BOTH).record()
        loader = info.context.loaders.edges(way, kind, active_only)
        return [Edge.of(e) for e in await loader.load(self.id)]


#: How each field of a MemoryItem is read from an Item record.
_FIELDS: dict[str, Callable[[Item], Any]] = {
    "id": lambda i: strawberry.ID(i.id),
    "scope": lambda i: i.scope,
    "kind": lambda i: i.kind,
    "content": lambda i: JSON(i.content),
    "author": lambda i: i.author,
    "source_kind": lambda i: i.source_kind,
    "parents": lambda i: [strawberry.ID(p) for p in i.parents or ()],
    "authority": lambda i: i.authority,
    "conviction": lambda i: i.conviction,
    "importance": lambda i: i.importance,
    "intent_id": lambda i: None if i.intent_id is None else strawberry.ID(i.intent_id),
    "task_id": lambda i: None if i.task_id is None else strawberry.ID(i.task_id),
    "meta": lambda i: None if i.meta is None else JSON(i.meta),
    "created_at": lambda i: ms_to_datetime(i.created_at),
    "retracted": lambda i: i.retracted,
    "lifecycle": lambda i: Lifecycle(tiering(i.meta).lifecycle),
    "priority": lambda i: Priority(tiering(i.meta).priority),
    "tags": lambda i: list(tiering(i.meta).tags),
    "session_id": lambda i: tiering(i.meta).session_id,
    "archived": lambda i: i.archived,
    "access": lambda i: AccessStats(
        count=i.access_count,
        last_accessed_at=None if i.last_accessed_at is None else ms_to_datetime(i.last_accessed_at),
    ),
}


class _Selected(MemoryItem):
    """A MemoryItem whose fields are read from its record when selected, not
    before: a batch of thousands usually selects only ``items { id }``. The
    fields are properties (set below), so probes for other attributes, such
    as ``__await__`` on every list item, stay as cheap as on any object."""

    def __init__(self, item: Item) -> None:  # no dataclass init: nothing computed yet
        self._record = item


def _selected_field(read: Callable[[Item], Any]) -> property:
    return property(lambda self: read(self._record))


for _name, _read in _FIELDS.items():
    setattr(_Selected, _name, _selected_field(_read))


_ITEM_FIELDS = {
    "id": "A UUIDv7 of your own (idempotent retries, interop); generated when absent.",
    "scope": "Where the belief applies, e.g. `project:acme`.",
    "kind": "What sort of belief: `observation`, `fact`, `hypothesis`, …",
    "content": "The belief itself: a JSON object.",
    "author": "Who asserts it: `user:…`, `agent:…`, `system:…`.",
    "source_kind": "How it was obtained: `user_explicit`, `observed`, `agent_inferred`, …",
    "parents": "Ids it derives from, in order (they need not exist yet).",
    "authority": "How much to trust the source, in [0, 1].",
    "conviction": "How sure the author is, in [0, 1].",
    "importance": "How much it matters, in [0, 1].",
    "intent_id": "The intent it serves.",
    "task_id": "The task that produced it.",
    "meta": "Free-form JSON object (agent_id, session_id, tags…), filterable by dot path.",
    "lifecycle": "Its tier: EPHEMERAL, SESSION, TASK or PROJECT (the default).",
    "priority": "Its priority, P0 (highest) to P3; P2 by default.",
    "tags": TAGS,
    "session_id": "The session it belongs to (stored as `meta.session_id`).",
}


def _d(name: str) -> str:
    return _ITEM_FIELDS[name]


@flat
@strawberry.input(description="A new memory item.")
class MemoryItemInput:
    id: strawberry.ID | None = strawberry.field(default=None, description=_d("id"))
    scope: str = strawberry.field(description=_d("scope"))
    kind: str = strawberry.field(description=_d("kind"))
    content: JSON = strawberry.field(description=_d("content"))
    author: str = strawberry.field(description=_d("author"))
    source_kind: str = strawberry.field(description=_d("source_kind"))
    parents: list[strawberry.ID] | None = strawberry.field(default=None, description=_d("parents"))
    authority: float = strawberry.field(description=_d("authority"))
    conviction: float | None = strawberry.field(default=None, description=_d("conviction"))
    importance: float | None = strawberry.field(default=None, description=_d("importance"))
    intent_id: strawberry.ID | None = strawberry.field(default=None, description=_d("intent_id"))
    task_id: strawberry.ID | None = strawberry.field(default=None, description=_d("task_id"))
    meta: JSON | None = strawberry.field(default=None, description=_d("meta"))
    lifecycle: Lifecycle | None = strawberry.field(default=None, description=_d("lifecycle"))
    priority: Priority | None = strawberry.field(default=None, description=_d("priority"))
    tags: list[str] | None = strawberry.field(default=None, description=_d("tags"))
    session_id: str | None = strawberry.field(default=None, description=_d("session_id"))

    def draft(self) -> NewItem:
        return NewItem(
            id=self.id, scope=self.scope, kind=self.kind, content=self.content,
            author=self.author, source_kind=self.source_kind, authority=self.authority,
            parents=self.parents, conviction=self.conviction, importance=self.importance,
            intent_id=self.intent_id, task_id=self.task_id, meta=self.meta,
            lifecycle=value(self.lifecycle), priority=value(self.priority), tags=self.tags,
            session_id=self.session_id,
        )  # fmt: skip


@flat
@strawberry.input(
    description="Changes to an item: given fields replace, `content` and `meta` merge "
    "shallowly, absent or null fields stay as they are."
)
class MemoryItemPatch:
    scope: str | None = strawberry.field(default=None, description=_d("scope"))
    kind: str | None = strawberry.field(default=None, description=_d("kind"))
    content: JSON | None = strawberry.field(
        default=None, description="Keys to set in the content (a shallow merge)."
    )
    author: str | None = strawberry.field(default=None, description=_d("author"))
    source_kind: str | None = strawberry.field(default=None, description=_d("source_kind"))
    parents: list[strawberry.ID] | None = strawberry.field(
        default=None, description="The new parent list (replaces the old one)."
    )
    authority: float | None = strawberry.field(default=None, description=_d("authority"))
    conviction: float | None = strawberry.field(default=None, description=_d("conviction"))
    importance: float | None = strawberry.field(default=None, description=_d("importance"))
    intent_id: strawberry.ID | None = strawberry.field(default=None, description=_d("intent_id"))
    task_id: strawberry.ID | None = strawberry.field(default=None, description=_d("task_id"))
    meta: JSON | None = strawberry.field(
        default=None, description="Keys to set in meta (a shallow merge)."
    )
    lifecycle: Lifecycle | None = strawberry.field(default=None, description=_d("lifecycle"))
    priority: Priority | None = strawberry.field(default=None, description=_d("priority"))
    tags: list[str] | None = strawberry.field(
        default=None, description="The new tag list (replaces the old one)."
    )
    session_id: str | None = strawberry.field(default=None, description=_d("session_id"))

    def draft(self) -> ItemPatch:
        return ItemPatch(
            scope=self.scope, kind=self.kind, content=self.content, author=self.author,
            source_kind=self.source_kind, parents=self.parents, authority=self.authority,
            conviction=self.conviction, importance=self.importance,
            intent_id=self.intent_id, task_id=self.task_id, meta=self.meta,
            lifecycle=value(self.lifecycle), priority=value(self.priority), tags=self.tags,
            session_id=self.session_id,
        )  # fmt: skip


@strawberry.type(description="The item a command wrote and the events it emitted.")
class ItemResult:
    item: MemoryItem = strawberry.field(description="The item as stored.")
    events: list[Event] = strawberry.field(description="The events the command emitted.")


@strawberry.type(description="The items a batch created and the events it emitted.")
class ItemsResult:
    """Built lazily: a batch of thousands usually selects only ``items { id }``."""

    created: strawberry.Private[list[Item]]
    emitted: strawberry.Private[Sequence[EventRecord]]

    @strawberry.field(description="The items as stored, in input order.")
    def items(self) -> list[MemoryItem]:
        return MemoryItem.all(self.created)

    @strawberry.field(description="One `memory.created` event per item, in input order.")
    def events(self) -> list[Event]:
        return Event.all(list(self.emitted))

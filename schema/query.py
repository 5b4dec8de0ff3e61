"""The root Query type."""

from __future__ import annotations

import strawberry
from memexd.resolvers import edges as edges_r
from memexd.resolvers import events as events_r
from memexd.resolvers import history as history_r
from memexd.resolvers import integrity as integrity_r
from memexd.resolvers import intents as intents_r
from memexd.resolvers import items as items_r
from memexd.resolvers import jobs as jobs_r
from memexd.resolvers import lifecycle as lifecycle_r
from memexd.resolvers import recall as recall_r
from memexd.resolvers import retrieval as retrieval_r
from memexd.resolvers import stats as stats_r
from memexd.resolvers import transplant as transplant_r
from memexd.resolvers import working as working_r
from memexd.schema.context import ContextBlock
from memexd.schema.edges import Edge
from memexd.schema.events import Event
from memexd.schema.integrity import Contradiction, ProvenanceGraph, StaleItem
from memexd.schema.intents import Intent, Task
from memexd.schema.items import MemoryItem
from memexd.schema.jobs import Job, MemoryArchive, Schedule
from memexd.schema.recall import RecallHit
from memexd.schema.retrieval import RetrievalExplanation, ScoredItem
from memexd.schema.stats import GraphStats
from memexd.schema.working import WorkingMemory
from strawberry.scalars import JSON

__all__ = ["Query"]


@strawberry.type(description="Reading memory: items, edges, the event log, the graph questions.")
class Query:
    item: MemoryItem | None = strawberry.field(
        resolver=items_r.item, description="One item by id (retracted ones only when asked)."
    )
    items: list[MemoryItem] = strawberry.field(
        resolver=items_r.items,
        description="Items matching a filter, sorted (ties by id) and paged in the database.",
    )
    edge: Edge | None = strawberry.field(resolver=edges_r.edge, description="One edge by id.")
    edges: list[Edge] = strawberry.field(
        resolver=edges_r.edges, description="Edges matching a filter, by edge id."
    )
    search_items: list[MemoryItem] = strawberry.field(
        resolver=items_r.search_items,
        description="Items whose content holds every given word (the engine's full-text "
        "index, with stemming), best match first, ties by id; UNSUPPORTED unless the server "
        "runs with MEMEXD_TEXT_SEARCH.",
    )
    recall: list[RecallHit] = strawberry.field(
        resolver=recall_r.recall,
        description="What do I remember about this cue? Items by meaning (the vector index) "
        "and by words (the full-text index), fused, weighed by authority, contradicted and "
        "superseded items sunk, under the caller's grants and filter; best first.",
    )
    context: ContextBlock = strawberry.field(
        resolver=lifecycle_r.context,
        description="A context block for an agent: Project profile, Summaries, Task context "
        "and Discoveries, one line an item, at most maxBytes bytes; the same graph and input "
        "give the same bytes.",
    )
    profile: ContextBlock = strawberry.field(
        resolver=lifecycle_r.profile,
        description="The Project profile section alone: the newest PROJECT items.",
    )
    working_memory: WorkingMemory = strawberry.field(
        resolver=working_r.working_memory,
        description="A session's working memory in a scope: its capacity and what it holds.",
    )
    job: Job | None = strawberry.field(
        resolver=jobs_r.job, description="A maintenance job the caller may see; null if none."
    )
    jobs: list[Job] = strawberry.field(
        resolver=jobs_r.jobs, description="Maintenance jobs the caller may see, newest first."
    )
    archives: list[MemoryArchive] = strawberry.field(
        resolver=jobs_r.archives, description="The archives the caller may see, newest first."
    )
    schedules: list[Schedule] = strawberry.field(
        resolver=jobs_r.schedules, description="The schedules the caller may see, by name."
    )
    related_items: list[MemoryItem] = strawberry.field(
        resolver=items_r.related_items, description="Live items joined to this one by active edges."
    )
    parents: list[MemoryItem] = strawberry.field(
        resolver=items_r.parents, description="The item's live parents, in list order."
    )
    children: list[MemoryItem] = strawberry.field(
        resolver=items_r.children,
        description="Live items naming this id as a parent (the id may be retracted or missing).",
    )
    events: list[Event] = strawberry.field(
        resolver=events_r.events, description="The event log in commit order, after a cursor."
    )
    support_tree: ProvenanceGraph | None = strawberry.field(
        resolver=integrity_r.support_tree,
        description="Transitive parents as a flat graph (cycle-safe, missing parents skipped).",
    )
    support_set: list[MemoryItem] = strawberry.field(
        resolver=integrity_r.support_set,
        description="The item and everything supporting it, deduplicated, item first.",
    )
    item_as_of: MemoryItem | None = strawberry.field(
        resolver=history_r.item_as_of,
        description="The item as it was at an instant, from the event log: null when it "
        "was not there then (not yet created, retracted, purged) or its scope then is not "
        "the caller's to read. Its fields are those of then; the fields it links to are read "
        "as they are now.",
    )
    items_as_of: list[MemoryItem] = strawberry.field(
        resolver=history_r.items_as_of,
        description="The items there at an instant that the filter matches as they were "
        "then (archived ones only when the filter asks), by id; RESOURCE_EXHAUSTED when more "
        "than MEMEXD_MAX_PAGE items changed since the instant.",
    )
    support_set_as_of: list[MemoryItem] = strawberry.field(
        resolver=history_r.support_set_as_of,
        description="supportSet at an instant: the item and the items present then that "
        "support it through the parents each had then, item first; empty when the item "
        "was not there.",
    )
    contradictions: list[Contradiction] = strawberry.field(
        resolver=integrity_r.contradictions,
        description="Active CONTRADICTS edges between live items, with both items.",
    )
    stale_items: list[StaleItem] = strawberry.field(
        resolver=integrity_r.stale_items,
        description="Live items naming a parent that is missing or retracted.",
    )
    dependents: list[MemoryItem] = strawberry.field(
        resolver=integrity_r.dependents,
        description="Live items naming this id as a parent, or (transitive) their live "
        "descendants too; the id itself may be live, retracted or missing.",
    )
    aliases: list[MemoryItem] = strawberry.field(
        resolver=integrity_r.aliases, description="Direct aliases of the item."
    )
    intent: Intent | None = strawberry.field(
        resolver=intents_r.intent, description="One intent by id."
    )
    intents: list[Intent] = strawberry.field(
        resolver=intents_r.intents, description="Intents matching a filter, in creation order."
    )
    task: Task | None = strawberry.field(resolver=intents_r.task, description="One task by id.")
    tasks: list[Task] = strawberry.field(
        resolver=intents_r.tasks, description="Tasks matching a filter, in creation order."
    )
    alias_group: list[MemoryItem] = strawberry.field(
        resolver=integrity_r.alias_group,
        description="The transitive closure of aliasing, the item itself first.",
    )
    export_slice: JSON = strawberry.field(
        resolver=transplant_r.export_slice,
        description="MemEX export JSON walked from anchors, as MemEX's exportSlice "
        "(only live items and edges the caller can read).",
    )
    stats: GraphStats = strawberry.field(
        resolver=stats_r.stats,
        description="MemEX's getStats over what the caller can read, aggregated in the database.",
    )
    scored_items: list[ScoredItem] = strawberry.field(
        resolver=retrieval_r.scored_items,
        description="Items scored in the database: pre-filter, score (weights, decay), minScore, "
        "post-filter, paging; score descending, ties by id.",
    )
    items_by_budget: list[ScoredItem] = strawberry.field(
        resolver=retrieval_r.items_by_budget,
        description="Greedy packing in score order under a cost budget, streamed from the "
        "database until the budget is full.",
    )
    smart_retrieve: list[ScoredItem] = strawberry.field(
        resolver=retrieval_r.smart_retrieve,
        description="Filter, score, contradiction policy, diversity, then budget packing "
        "(docs/retrieval.md).",
    )
    smart_retrieve_explained: RetrievalExplanation = strawberry.field(
        resolver=retrieval_r.smart_retrieve_explained,
        description="smartRetrieve, with what it left out and why (superseded, lost a "
        "contradiction, diversity penalty, over budget).",
    )

"""The memexd core: every service, wired to one graph and one caller."""

from __future__ import annotations

import asyncio
from functools import cached_property

from memexd.access.grants import EVERYTHING, Access
from memexd.events.log import EventLog
from memexd.graph import Graph
from memexd.history.asof import AsOf
from memexd.history.undo import Undo
from memexd.integrity.aliases import Aliases
from memexd.integrity.cascade import Cascade
from memexd.integrity.contradictions import Contradictions
from memexd.integrity.provenance import Provenance
from memexd.integrity.trust import Trust
from memexd.intents.commands import PlanCommands
from memexd.intents.reads import PlanReads
from memexd.intents.spec import INTENT, TASK
from memexd.jobs.queue import JobQueue
from memexd.jobs.schedules import Schedules
from memexd.memory.archive import Archival
from memexd.memory.context import Contexts
from memexd.memory.edges import EdgeCommands, EdgeReads
from memexd.memory.items import ItemCommands
from memexd.memory.promotion import Promotion
from memexd.memory.reads import ItemReads
from memexd.memory.text import TextSearch
from memexd.memory.usage import Usage
from memexd.memory.validation import Limits
from memexd.recall.fresh import Fresh
from memexd.recall.model import E5Small, Embedder
from memexd.recall.service import Recall
from memexd.recall.statistics import Statistics
from memexd.recall.vectors import OwnVectors
from memexd.retrieval.service import Retrieval
from memexd.settings import Settings
from memexd.types import GraphStore

__all__ = ["Memex"]


class Memex:
    """Commands and reads over one graph store, as one caller.

    The services are built on first use: a request touches few of them. Every
    query they run carries the caller's grants (see :class:`Graph`); the
    process-wide parts (query cache, walk slots) are shared by
    :meth:`as_caller`.
    """

    def __init__(
        self,
        store: GraphStore,
        settings: Settings,
        access: Access = EVERYTHING,
        *,
        shared: Memex | None = None,
    ) -> None:
        self.settings = settings
        self.limits: Limits = Limits.of(settings) if shared is None else shared.limits
        self.graph: Graph = Graph(store, access) if shared is None else shared.graph.bound(access)
        #: shared by every caller: the embedding model (None: embeddings are off)
        self.embedder: Embedder | None = (
            _embedder(settings) if shared is None else shared.embedder
        )  # fmt: skip
        #: shared by every caller: at most max_concurrent_walks walks at once
        self.walk_slots: asyncio.Semaphore = (
            asyncio.Semaphore(settings.max_concurrent_walks) if shared is None
            else shared.walk_slots
        )  # fmt: skip
        #: shared by every caller: the vectors recall made of waiting items
        self.fresh: Fresh | None = (
            (None if self.embedder is None else Fresh(self.embedder)) if shared is None
            else shared.fresh
        )  # fmt: skip
        #: shared by every caller: recall's word statistics, per (grants, filter)
        self.word_statistics: Statistics = (
            Statistics() if shared is None else shared.word_statistics
        )

    @property
    def access(self) -> Access:
        return self.graph.access

    def as_caller(self, access: Access) -> Memex:
        """The same core for another caller: its queries carry that caller's grants."""
        return Memex(self.graph.store, self.settings, access, shared=self)

    @cached_property
    def items(self) -> ItemCommands:
        return ItemCommands(self.graph, self.limits)

    @cached_property
    def item_reads(self) -> ItemReads:
        return ItemReads(self.graph, self.limits)

    @cached_property
    def usage(self) -> Usage:
        return Usage(self.graph, self.limits)

    @cached_property
    def archival(self) -> Archival:
        return Archival(self.graph, self.limits, self.item_reads)

    @cached_property
    def promotion(self) -> Promotion:
        return Promotion(self.graph, self.limits, self.items, self.item_reads, self.task_reads)

    @cached_property
    def contexts(self) -> Contexts:
        return Contexts(self.item_reads, self.recall, self.usage)

    @cached_property
    def as_of(self) -> AsOf:
        s = self.settings
        return AsOf(self.graph, self.limits, s.traversal_max_depth, s.traversal_max_nodes)

    @cached_property
    def undo(self) -> Undo:
        return Undo(self.graph)

    @cached_property
    def text(self) -> TextSearch:
        return TextSearch(self.graph, self.limits, self.settings.text_search)

    @cached_property
    def recall(self) -> Recall:
        return Recall(self.graph, self.limits, self.embedder, self.settings.text_search,
                      self.trust, self.word_statistics, self.fresh)  # fmt: skip

    @cached_property
    def own_vectors(self) -> OwnVectors:
        return OwnVectors(self.graph, self.limits)

    @cached_property
    def jobs(self) -> JobQueue:
        return JobQueue(self.graph, self.limits, self.settings.jobs_max_queued)

    @cached_property
    def schedules(self) -> Schedules:
        return Schedules(self.graph, self.limits, self.settings)

    @cached_property
    def edges(self) -> EdgeCommands:
        return EdgeCommands(self.graph, self.limits)

    @cached_property
    def edge_reads(self) -> EdgeReads:
        return EdgeReads(self.graph, self.limits)

    @cached_property
    def events(self) -> EventLog:
        return EventLog(self.graph, self.limits)

    @cached_property
    def provenance(self) -> Provenance:
        return Provenance(self.graph, self.settings, self.item_reads, self.walk_slots)

    @cached_property
    def cascade(self) -> Cascade:
        return Cascade(self.graph, self.provenance)

    @cached_property
    def aliases(self) -> Aliases:
        return Aliases(self.graph, self.limits, self.provenance)

    @cached_property
    def contradictions(self) -> Contradictions:
        return Contradictions(self.graph, self.limits, self.edges, self.item_reads)

    @cached_property
    def trust(self) -> Trust:
        return Trust(self.provenance, self.contradictions)

    @cached_property
    def intents(self) -> PlanCommands:
        return PlanCommands(self.graph, self.limits, INTENT)

    @cached_property
    def tasks(self) -> PlanCommands:
        return PlanCommands(self.graph, self.limits, TASK)

    @cached_property
    def intent_reads(self) -> PlanReads:
        return PlanReads(self.graph, self.limits, INTENT)

    @cached_property
    def task_reads(self) -> PlanReads:
        return PlanReads(self.graph, self.limits, TASK)

    @cached_property
    def retrieval(self) -> Retrieval:
        return Retrieval(self.graph, self.limits, self.item_reads, self.trust.of)


def _embedder(settings: Settings) -> Embedder | None:
    return None if settings.embedding == "off" else E5Small()

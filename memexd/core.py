"""The memexd core: every service, wired to one graph."""

from __future__ import annotations

from memexd.events.log import EventLog
from memexd.graph import Graph
from memexd.integrity.aliases import Aliases
from memexd.integrity.cascade import Cascade
from memexd.integrity.contradictions import Contradictions
from memexd.integrity.provenance import Provenance
from memexd.memory.edges import EdgeCommands, EdgeReads
from memexd.memory.items import ItemCommands
from memexd.memory.reads import ItemReads
from memexd.memory.validation import Limits
from memexd.settings import Settings
from memexd.types import GraphStore

__all__ = ["Memex"]


class Memex:
    """Commands and reads over one graph store."""

    def __init__(self, store: GraphStore, settings: Settings) -> None:
        self.settings = settings
        self.limits = limits = Limits.of(settings)
        self.graph = graph = Graph(store)
        self.items = ItemCommands(graph, limits)
        self.item_reads = ItemReads(graph, limits)
        self.edges = EdgeCommands(graph, limits)
        self.edge_reads = EdgeReads(graph, limits)
        self.events = EventLog(graph, limits)
        self.provenance = Provenance(graph, settings, self.item_reads)
        self.cascade = Cascade(graph, self.provenance)
        self.aliases = Aliases(graph, limits, self.provenance)
        self.contradictions = Contradictions(graph, limits, self.edges, self.item_reads)

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
from memexd.settings import Settings
from memexd.types import GraphStore

__all__ = ["Memex"]


class Memex:
    """Commands and reads over one graph store."""

    def __init__(self, store: GraphStore, settings: Settings) -> None:
        self.settings = settings
        self.graph = Graph(store)
        self.items = ItemCommands(self.graph, settings)
        self.item_reads = ItemReads(self.graph, settings)
        self.edges = EdgeCommands(self.graph, settings)
        self.edge_reads = EdgeReads(self.graph, settings)
        self.events = EventLog(self.graph, settings.max_page)
        self.provenance = Provenance(self.graph, settings, self.item_reads)
        self.cascade = Cascade(self.graph, self.provenance, self.item_reads)
        self.aliases = Aliases(self.graph, self.edges, self.provenance)
        self.contradictions = Contradictions(self.graph, self.edges, self.item_reads)

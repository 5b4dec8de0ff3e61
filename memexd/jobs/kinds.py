"""The job types this server runs, by name (SPEC §13)."""

from __future__ import annotations

from memexd.jobs.archives import ArchiveCreate, ArchiveRestore
from memexd.jobs.cleanup import Cleanup
from memexd.jobs.consolidate import Consolidate
from memexd.jobs.decay import DecayUpdate
from memexd.jobs.params import Kind
from memexd.jobs.patterns import PatternsExtract

__all__ = ["KINDS", "kind_of"]

KINDS: dict[str, Kind] = {
    "ARCHIVE_CREATE": ArchiveCreate(),
    "ARCHIVE_RESTORE": ArchiveRestore(),
    "CLEANUP": Cleanup(),
    "CONSOLIDATE": Consolidate(),
    "DECAY_UPDATE": DecayUpdate(),
    "PATTERNS_EXTRACT": PatternsExtract(),
}


def kind_of(type_: str) -> Kind:
    """The type's implementation (``type_`` is one of JOB_TYPES, checked)."""
    return KINDS[type_]

"""The job types this server runs, by name (SPEC §13)."""

from __future__ import annotations

from memexd.errors import Unsupported
from memexd.jobs.archives import ArchiveCreate, ArchiveRestore
from memexd.jobs.cleanup import Cleanup
from memexd.jobs.consolidate import Consolidate
from memexd.jobs.decay import DecayUpdate
from memexd.jobs.params import Kind

__all__ = ["KINDS", "kind_of"]

KINDS: dict[str, Kind] = {
    "ARCHIVE_CREATE": ArchiveCreate(),
    "ARCHIVE_RESTORE": ArchiveRestore(),
    "CLEANUP": Cleanup(),
    "CONSOLIDATE": Consolidate(),
    "DECAY_UPDATE": DecayUpdate(),
}


def kind_of(type_: str) -> Kind:
    """The type's implementation; UNSUPPORTED for one this server does not run yet."""
    kind = KINDS.get(type_)
    if kind is None:
        raise Unsupported(f"{type_} jobs are not available on this server yet "
                          f"(available: {', '.join(sorted(KINDS))})")  # fmt: skip
    return kind

"""Archival in GraphQL: ``archiveByDecay`` and its report (memexd.memory.archive)."""

from __future__ import annotations

from datetime import datetime

import strawberry
from memexd.schema.filters import MemoryFilter, epoch_ms

from memexd.memory import archive as domain

__all__ = ["ArchiveInput", "ArchiveReport"]


@strawberry.input(description='Which stale items to archive (README, "Lifecycle").')
class ArchiveInput:
    filter: MemoryFilter | None = strawberry.field(default=None, description="Among which items.")
    threshold: float | None = strawberry.field(
        default=None, description="Archive items whose decay score is below this (0.1 unless "
        "given; within (0, 10]).",
    )  # fmt: skip
    half_life_ms: float | None = strawberry.field(
        default=None, description="The decay score's half-life (the server's unless given)."
    )
    now: datetime | None = strawberry.field(
        default=None, description="The instant the score is taken at (the server's clock)."
    )
    dry_run: bool | None = strawberry.field(
        default=None, description="Report what would be archived; write nothing."
    )
    author: str = strawberry.field(description="Who archives (on every event).")

    def request(self) -> domain.ArchiveRequest:
        return domain.ArchiveRequest(
            self.author, None if self.filter is None else self.filter.draft(), self.threshold,
            self.half_life_ms, epoch_ms(self.now, "now"), self.dry_run,
        )  # fmt: skip


@strawberry.type(description="What archiveByDecay did, or would do on a dry run; each list is "
                 "lowest decay score first.")  # fmt: skip
class ArchiveReport:
    archived_ids: list[strawberry.ID] = strawberry.field(
        description="Archived (at most MEMEXD_MAX_BATCH a call: call again for more)."
    )
    retained_ids: list[strawberry.ID] = strawberry.field(
        description="At or above the threshold (the first MEMEXD_MAX_LIST)."
    )
    skipped_ids: list[strawberry.ID] = strawberry.field(
        description="Below the threshold but PROJECT, so kept (the first MEMEXD_MAX_LIST)."
    )
    dry_run: bool = strawberry.field(description="Nothing was written.")

    @classmethod
    def of(cls, r: domain.ArchiveReport) -> ArchiveReport:
        return cls(archived_ids=_ids(r.archived), retained_ids=_ids(r.retained),
                   skipped_ids=_ids(r.skipped), dry_run=r.dry_run)  # fmt: skip


def _ids(values: list[str]) -> list[strawberry.ID]:
    return [strawberry.ID(v) for v in values]

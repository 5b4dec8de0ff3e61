"""Bulk transforms in GraphQL: ``ScoreAdjustment``, ``ItemTransformInput`` and
``BulkOptions``, and their domain forms."""

from __future__ import annotations

import strawberry
from memexd.schema.filters import FloatRange, ScoreRanges, SortOption, sort_keys
from strawberry.scalars import JSON

from memexd.memory import bulk as domain
from memexd.memory.filters import Range

__all__ = ["BulkOptions", "ItemTransformInput", "ScoreAdjustment"]


@strawberry.input(description="A number per score; a score left out is left alone.")
class ScoreAdjustment:
    authority: float | None = strawberry.field(default=None, description="For authority.")
    conviction: float | None = strawberry.field(default=None, description="For conviction.")
    importance: float | None = strawberry.field(default=None, description="For importance.")

    def draft(self) -> domain.ScoreChange:
        return domain.ScoreChange(self.authority, self.conviction, self.importance)


@strawberry.input(
    description="What applyMany does to each matched item, as MemEX's transform function "
    "would: retract it (and every edge touching it), or change its scores and meta (one "
    "memory.updated each). Each score may be named by one of set, multiply and add."
)
class ItemTransformInput:
    set: ScoreAdjustment | None = strawberry.field(
        default=None, description="New values, each in [0, 1]."
    )
    multiply: ScoreAdjustment | None = strawberry.field(
        default=None,
        description="Factors; the result is clamped to [0, 1]; a missing score stays missing.",
    )
    add: ScoreAdjustment | None = strawberry.field(
        default=None,
        description="Deltas; the result is clamped to [0, 1]; a missing score counts as 0.",
    )
    meta_set: JSON | None = strawberry.field(
        default=None, description="Merged into meta (shallow: these keys replace theirs)."
    )
    retract: bool | None = strawberry.field(
        default=None, description="Retract every matched item (nothing else may be given)."
    )
    retract_where: ScoreRanges | None = strawberry.field(
        default=None,
        description="Retract the items within these ranges (a missing score is outside any "
        "bounded range); the others get the changes.",
    )

    def draft(self) -> domain.Transform:
        where = self.retract_where
        return domain.Transform(
            set=None if self.set is None else self.set.draft(),
            multiply=None if self.multiply is None else self.multiply.draft(),
            add=None if self.add is None else self.add.draft(),
            meta_set=self.meta_set,
            retract=self.retract,
            retract_where=None if where is None else domain.ScoreRanges(
                _range(where.authority), _range(where.conviction), _range(where.importance)),
        )  # fmt: skip


@strawberry.input(description="Which of the matched items, in which order (events follow it).")
class BulkOptions:
    sort: list[SortOption] | None = strawberry.field(
        default=None, description="Up to 4 keys; ties by id (default: by id)."
    )
    limit: int | None = strawberry.field(
        default=None, description="At most this many (at most MEMEXD_MAX_BATCH)."
    )
    offset: int | None = strawberry.field(default=None, description="Skip this many first.")

    def draft(self) -> domain.BulkOptions:
        return domain.BulkOptions(sort_keys(self.sort), self.limit, self.offset)


def _range(r: FloatRange | None) -> Range | None:
    return None if r is None else r.draft()

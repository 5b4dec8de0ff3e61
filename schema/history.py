"""Types of memory through time: the report of an undo."""

from __future__ import annotations

import strawberry
from memexd.schema.events import Event

__all__ = ["UndoReport"]


@strawberry.type(description="What an undo by trace took back, or would, or what stopped it.")
class UndoReport:
    trace_id: strawberry.ID = strawberry.field(description="The trace taken back.")
    dry_run: bool = strawberry.field(description="True: the plan only; nothing was written.")
    retracted_item_ids: list[strawberry.ID] = strawberry.field(
        description="Items the trace created, retracted (with the edges touching them)."
    )
    restored_item_ids: list[strawberry.ID] = strawberry.field(
        description="Items the trace changed, given back the record they had before."
    )
    retracted_edge_ids: list[strawberry.ID] = strawberry.field(
        description="Edges the trace made, retracted."
    )
    conflicts: list[str] = strawberry.field(
        description="Later changes by other commands to what the trace touched, each named; "
        "any of them stops the undo (nothing is written)."
    )
    events: list[Event] = strawberry.field(description="The undo's events, in log order.")

"""Transplant in GraphQL: ``exportSlice``'s input, ``importSlice``'s options and report.

The slice itself travels as MemEX export JSON (``memexd.transplant``).
"""

from __future__ import annotations

import strawberry
from memexd.schema.common import flat

from memexd.transplant.export import ExportOptions
from memexd.transplant.slices import IdLists as IdListsRecord
from memexd.transplant.slices import ImportOptions as ImportOptionsRecord
from memexd.transplant.slices import ImportReport as ImportReportRecord

__all__ = ["ExportInput", "IdLists", "ImportOptions", "ImportReport"]

_ANCHORS = "at most MEMEXD_MAX_LIST; ids naming nothing you can read are left out"


@flat
@strawberry.input(
    description="What to export: anchors by id, and what to walk from them, in MemEX's order "
    "(parents, children, aliases, edges between the memories, related intents, related tasks)."
)
class ExportInput:
    memory_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description=f"Memories to start from ({_ANCHORS})."
    )
    intent_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description=f"Intents to include ({_ANCHORS})."
    )
    task_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description=f"Tasks to include ({_ANCHORS})."
    )
    include_parents: bool | None = strawberry.field(
        default=None, description="Walk parents up from the memories, transitively."
    )
    include_children: bool | None = strawberry.field(
        default=None,
        description="Walk children down from every memory so far (ancestors too), transitively.",
    )
    include_aliases: bool | None = strawberry.field(
        default=None, description="Walk active ALIAS edges both ways, transitively."
    )
    include_related_tasks: bool | None = strawberry.field(
        default=None,
        description="Add tasks of the exported intents, tasks reading or writing an exported "
        "memory, and the tasks the memories name.",
    )
    include_related_intents: bool | None = strawberry.field(
        default=None,
        description="Add intents rooted in an exported memory and the intents the memories name.",
    )

    def options(self) -> ExportOptions:
        return ExportOptions(
            memory_ids=self.memory_ids,
            intent_ids=self.intent_ids,
            task_ids=self.task_ids,
            include_parents=bool(self.include_parents),
            include_children=bool(self.include_children),
            include_aliases=bool(self.include_aliases),
            include_related_tasks=bool(self.include_related_tasks),
            include_related_intents=bool(self.include_related_intents),
        )


@flat
@strawberry.input(description="How an import treats records whose id exists (MemEX's table).")
class ImportOptions:
    skip_existing_ids: bool | None = strawberry.field(
        default=True, description="Leave existing records alone (false: update them in place)."
    )
    shallow_compare_existing: bool | None = strawberry.field(
        default=False, description="With skipExistingIds: report differing records as conflicts."
    )
    re_id_on_difference: bool | None = strawberry.field(
        default=False,
        description="With both above: import a differing record as a new one, its id 1 ms "
        "later, and point the slice's references to it.",
    )

    def options(self) -> ImportOptionsRecord:
        """A null takes the default, as an omitted field does."""
        return ImportOptionsRecord(
            skip_existing_ids=self.skip_existing_ids is not False,
            shallow_compare_existing=bool(self.shallow_compare_existing),
            re_id_on_difference=bool(self.re_id_on_difference),
        )


@strawberry.type(description="Ids by kind of record.")
class IdLists:
    memories: list[strawberry.ID] = strawberry.field(description="Memory item ids.")
    intents: list[strawberry.ID] = strawberry.field(description="Intent ids.")
    tasks: list[strawberry.ID] = strawberry.field(description="Task ids.")
    edges: list[strawberry.ID] = strawberry.field(description="Edge ids.")

    @classmethod
    def of(cls, ids: IdListsRecord) -> IdLists:
        def listed(values: list[str]) -> list[strawberry.ID]:
            return [strawberry.ID(v) for v in values]

        return cls(memories=listed(ids.memories), intents=listed(ids.intents),
                   tasks=listed(ids.tasks), edges=listed(ids.edges))  # fmt: skip


@strawberry.type(
    description="What an import did, in processing order; re-id'd records under their new ids."
)
class ImportReport:
    created: IdLists = strawberry.field(description="Imported as new records.")
    updated: IdLists = strawberry.field(description="Existing records updated in place.")
    skipped: IdLists = strawberry.field(description="Existing records left alone.")
    conflicts: IdLists = strawberry.field(
        description="Not imported: the existing record differs, the id is held by something "
        "you cannot see, or (edges) an end is not a live item you can read."
    )

    @classmethod
    def of(cls, report: ImportReportRecord) -> ImportReport:
        return cls(created=IdLists.of(report.created), updated=IdLists.of(report.updated),
                   skipped=IdLists.of(report.skipped),
                   conflicts=IdLists.of(report.conflicts))  # fmt: skip

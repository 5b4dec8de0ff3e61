"""The root Mutation type."""

from __future__ import annotations

import strawberry
from memexd.resolvers import bulk as bulk_r
from memexd.resolvers import edges as edges_r
from memexd.resolvers import history as history_r
from memexd.resolvers import integrity as integrity_r
from memexd.resolvers import intents as intents_r
from memexd.resolvers import items as items_r
from memexd.resolvers import jobs as jobs_r
from memexd.resolvers import lifecycle as lifecycle_r
from memexd.resolvers import recall as recall_r
from memexd.resolvers import replay as replay_r
from memexd.resolvers import transplant as transplant_r
from memexd.resolvers import working as working_r
from memexd.schema.archive import ArchiveReport
from memexd.schema.edges import EdgeResult
from memexd.schema.events import EventsResult
from memexd.schema.federation import OPERATOR_TOOL
from memexd.schema.history import UndoReport
from memexd.schema.integrity import CascadeResult
from memexd.schema.intents import IntentResult, TaskResult
from memexd.schema.items import ItemResult, ItemsResult, MemoryItem
from memexd.schema.jobs import Job, Schedule
from memexd.schema.promotion import PromotionResult
from memexd.schema.replay import ReplayResult
from memexd.schema.transplant import ImportReport
from memexd.schema.working import WorkingMemory

__all__ = ["Mutation"]


@strawberry.type(
    description="Changing memory. Every command writes its change and its events atomically."
)
class Mutation:
    create_item: ItemResult = strawberry.mutation(
        resolver=items_r.create_item, description="Create one item."
    )
    create_items: ItemsResult = strawberry.mutation(
        resolver=items_r.create_items, description="Create a batch atomically (one statement)."
    )
    update_item: ItemResult = strawberry.mutation(
        resolver=items_r.update_item, description="Change a live item (content and meta merge)."
    )
    retract_item: EventsResult = strawberry.mutation(
        resolver=items_r.retract_item,
        description="Retract a live item and every edge touching it (tombstones).",
    )
    set_item_embeddings: list[strawberry.ID] = strawberry.mutation(
        resolver=recall_r.set_item_embeddings,
        description="Store the caller's own vectors on items it may write (at most 256 a "
        "call; all or none; no event): recall compares cues with them until the item's "
        "content changes.",
    )
    record_access: list[MemoryItem] = strawberry.mutation(
        resolver=lifecycle_r.record_access,
        description="Count one access to each item named (once each, however often named) "
        'and set its last access time; all or none; no event (README, "Lifecycle").',
    )
    archive_by_decay: ArchiveReport = strawberry.mutation(
        resolver=lifecycle_r.archive_by_decay,
        description="Archive the non-PROJECT items whose decay score is below a threshold: "
        "left out of every read unless asked for, never deleted; one memory.archived event "
        "each.",
    )
    unarchive_items: list[MemoryItem] = strawberry.mutation(
        resolver=lifecycle_r.unarchive_items,
        description="Put archived items back into every read; one memory.unarchived event each.",
    )
    set_working_memory: WorkingMemory = strawberry.mutation(
        resolver=working_r.set_working_memory,
        description="Bound how many SESSION items of a session stay unarchived in a scope: as "
        "new ones come in past it, the lowest by decay score are archived in the same write "
        "(memory.archived events). Configuration: no event of its own.",
    )
    promote_item: PromotionResult = strawberry.mutation(
        resolver=lifecycle_r.promote_item,
        description="Promote an item to project knowledge: a new PROJECT item with its "
        "content, the taxonomy tag, the source as parent and a DISCOVERED_FROM edge to it, in "
        "one write. Once per source: again, it answers the live promotion and writes nothing.",
    )
    promote_from_task: list[PromotionResult] = strawberry.mutation(
        resolver=lifecycle_r.promote_from_task,
        description="Promote every live summary item of a task (oldest first), in one write.",
    )
    run_job: Job = strawberry.mutation(
        resolver=jobs_r.run_job,
        description="Queue a maintenance job; it runs off the request path (poll job(id)).",
    )
    cancel_job: Job = strawberry.mutation(
        resolver=jobs_r.cancel_job,
        description="Cancel a queued job at once, or stop a running one after its current batch.",
    )
    create_schedule: Schedule = strawberry.mutation(
        resolver=jobs_r.create_schedule, description="Queue a job on a cron expression."
    )
    pause_schedule: Schedule = strawberry.mutation(
        resolver=jobs_r.pause_schedule, description="Stop a schedule's ticks until resumed."
    )
    resume_schedule: Schedule = strawberry.mutation(
        resolver=jobs_r.resume_schedule, description="Resume ticks, from the next one after now."
    )
    trigger_schedule: Job = strawberry.mutation(
        resolver=jobs_r.trigger_schedule,
        description="Queue the schedule's job now, as its overlap policy allows.",
    )
    delete_schedule: bool = strawberry.mutation(
        resolver=jobs_r.delete_schedule, description="Delete a schedule (its jobs stay)."
    )
    create_edge: EdgeResult = strawberry.mutation(
        resolver=edges_r.create_edge, description="Create a typed edge between two live items."
    )
    update_edge: EdgeResult = strawberry.mutation(
        resolver=edges_r.update_edge, description="Change an edge (its kind too)."
    )
    retract_edge: EventsResult = strawberry.mutation(
        resolver=edges_r.retract_edge, description="Retract an edge (its id stays taken)."
    )
    mark_contradiction: EdgeResult = strawberry.mutation(
        resolver=integrity_r.mark_contradiction,
        description="An active CONTRADICTS edge a→b (a = b marks a self-inconsistent item).",
    )
    resolve_contradiction: EventsResult = strawberry.mutation(
        resolver=integrity_r.resolve_contradiction,
        description=(
            "Winner supersedes loser, as MemEX: the active contradictions between them are "
            "retracted, a SUPERSEDES edge added, the loser's authority multiplied by 0.1; a no-op "
            "without events when no active contradiction joins them."
        ),
    )
    mark_alias: EventsResult = strawberry.mutation(
        resolver=integrity_r.mark_alias,
        description="Record identity both ways (a = b is a silent no-op).",
    )
    undo_trace: UndoReport = strawberry.mutation(
        resolver=history_r.undo_trace,
        description="Take back everything one command did (its trace id): items it created "
        "retracted, items it changed given back their earlier record, edges it made "
        "retracted, in one write. Later changes by other commands to the same things stop it "
        "and are named in conflicts; dryRun reports the plan.",
    )
    unmark_alias: EventsResult = strawberry.mutation(
        resolver=integrity_r.unmark_alias,
        description="Take identity back: retract every ALIAS edge joining a and b, each way, "
        "with events; the groups split as the remaining links say. BAD_USER_INPUT when no "
        "active ALIAS edge joins them.",
    )
    cascade_retract: CascadeResult = strawberry.mutation(
        resolver=integrity_r.cascade_retract,
        description="Retract the item and all transitive dependents at once, children first.",
    )
    create_intent: IntentResult = strawberry.mutation(
        resolver=intents_r.create_intent, description="Create an intent (status `active`)."
    )
    update_intent: IntentResult = strawberry.mutation(
        resolver=intents_r.update_intent, description="Change an intent's fields (any status)."
    )
    pause_intent: IntentResult = strawberry.mutation(
        resolver=intents_r.pause_intent, description="active → paused."
    )
    resume_intent: IntentResult = strawberry.mutation(
        resolver=intents_r.resume_intent, description="paused → active."
    )
    complete_intent: IntentResult = strawberry.mutation(
        resolver=intents_r.complete_intent, description="active or paused → completed."
    )
    cancel_intent: IntentResult = strawberry.mutation(
        resolver=intents_r.cancel_intent, description="active or paused → cancelled."
    )
    create_task: TaskResult = strawberry.mutation(
        resolver=intents_r.create_task, description="Create a task (status `pending`, attempt 0)."
    )
    update_task: TaskResult = strawberry.mutation(
        resolver=intents_r.update_task, description="Change a task's fields (any status)."
    )
    start_task: TaskResult = strawberry.mutation(
        resolver=intents_r.start_task,
        description="pending or failed → running; attempt + 1, the agent set if given.",
    )
    complete_task: TaskResult = strawberry.mutation(
        resolver=intents_r.complete_task, description="running → completed, with its result."
    )
    fail_task: TaskResult = strawberry.mutation(
        resolver=intents_r.fail_task, description="running → failed, with the error."
    )
    cancel_task: TaskResult = strawberry.mutation(
        resolver=intents_r.cancel_task, description="pending, running or failed → cancelled."
    )
    import_slice: ImportReport = strawberry.mutation(
        resolver=transplant_r.import_slice,
        description="Import MemEX export JSON by MemEX's table (skip, update, conflict, re-id); "
        "nothing is written unless the whole slice is valid.",
        directives=OPERATOR_TOOL,
    )
    replay_commands: ReplayResult = strawberry.mutation(
        resolver=replay_r.replay_commands,
        description="Apply MemEX commands in order; each failure is skipped with its code.",
        directives=OPERATOR_TOOL,
    )
    replay_envelopes: ReplayResult = strawberry.mutation(
        resolver=replay_r.replay_envelopes,
        description="Apply MemEX envelopes in `ts` order; each failure is skipped with its code.",
        directives=OPERATOR_TOOL,
    )
    apply_many: EventsResult = strawberry.mutation(
        resolver=bulk_r.apply_many,
        description="Apply a transform to every matched item in one write (MemEX's applyMany): "
        "retract it with its edges, or change its scores and meta; at most MEMEXD_MAX_BATCH items.",
    )
    bulk_adjust_scores: EventsResult = strawberry.mutation(
        resolver=bulk_r.bulk_adjust_scores,
        description="Add clamped deltas to the scores of every matched item, in one write.",
    )
    decay_importance: EventsResult = strawberry.mutation(
        resolver=bulk_r.decay_importance,
        description="Multiply the stored importance of items older than olderThanMs (clamped; "
        "zero or missing importance skipped), in one write.",
    )

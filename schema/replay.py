"""MemEX replay in GraphQL: the result of ``replayCommands`` / ``replayEnvelopes``."""

from __future__ import annotations

import strawberry

from memexd.transplant.replay import ReplayFailure as ReplayFailureRecord
from memexd.transplant.replay import ReplayOutcome

__all__ = ["ReplayFailure", "ReplayResult"]


@strawberry.type(description="A command the replay could not apply; the replay went on.")
class ReplayFailure:
    index: int = strawberry.field(description="Its position in the list given (from 0).")
    code: str = strawberry.field(
        description="The error code the command would have had alone (`DUPLICATE_MEMORY`, …)."
    )
    message: str = strawberry.field(description="What was wrong with it.")

    @classmethod
    def of(cls, failure: ReplayFailureRecord) -> ReplayFailure:
        return cls(index=failure.index, code=failure.code, message=failure.message)


@strawberry.type(description="What a replay did: how many commands it applied, which it skipped.")
class ReplayResult:
    applied: int = strawberry.field(description="Commands applied (the others are skipped).")
    skipped: list[ReplayFailure] = strawberry.field(
        description=(
            "Commands not applied. Commands: by index. Envelopes: bad timestamps first, by "
            "index, then failed payloads in the order they were applied (by time), as MemEX."
        )
    )

    @classmethod
    def of(cls, outcome: ReplayOutcome) -> ReplayResult:
        return cls(applied=outcome.applied, skipped=[ReplayFailure.of(f) for f in outcome.failures])

"""Resolvers for MemEX replay: a log given inline (the CLI streams bigger ones)."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from memexd.schema.common import Info
from memexd.schema.replay import ReplayResult
from strawberry.scalars import JSON

from memexd.errors import BadUserInput
from memexd.memory.validation import Limits
from memexd.transplant.replay import Replay

__all__ = ["replay_commands", "replay_envelopes"]


def _log(value: Any, field: str, limits: Limits) -> list[Any]:
    """The log as a list of at most ``max_batch`` entries; bigger logs go
    through ``memexd replay``, which streams them."""
    if not isinstance(value, list):
        raise BadUserInput("must be a JSON list", field=field)
    if len(value) > limits.max_batch:
        raise BadUserInput(
            f"more than {limits.max_batch} entries (MEMEXD_MAX_BATCH); "
            "`memexd replay` streams longer logs",
            field=field,
        )
    return value


async def replay_commands(
    info: Info,
    commands: Annotated[
        JSON,
        strawberry.argument(
            description="MemEX commands (snake_case JSON with a `type` tag), applied in order."
        ),
    ],
) -> ReplayResult:
    ctx = info.context
    log = _log(commands, "commands", ctx.memex.limits)
    return ReplayResult.of(await Replay(ctx.memex).commands(log, ctx.origin))


async def replay_envelopes(
    info: Info,
    envelopes: Annotated[
        JSON,
        strawberry.argument(
            description=(
                "MemEX event envelopes (`ts`: strict ISO-8601; `payload`: a command), "
                "applied in `ts` order (equal times in list order)."
            )
        ),
    ],
) -> ReplayResult:
    ctx = info.context
    log = _log(envelopes, "envelopes", ctx.memex.limits)
    return ReplayResult.of(await Replay(ctx.memex).envelopes(log, ctx.origin))

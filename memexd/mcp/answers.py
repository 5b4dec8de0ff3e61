"""What a tool answers: compact text an agent reads well, with the
structured form beside it, and memexd's errors as tool errors.

An item is one line of text (``[id] kind in scope, authority 0.80: first
line of content``) and, structured, MemEX's item object (``item_json``) with
``retracted`` and ``archived`` added. A refusal is a tool error (``isError``)
whose text starts with memexd's code (``BAD_USER_INPUT: …``) and whose
structured form is ``{"error": {"code", "message"}}``: the agent can read it
and act, and the connection stays up.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Iterable
from typing import ParamSpec

from mcp.types import CallToolResult, TextContent

from memexd.errors import MemexError
from memexd.memory.model import Item
from memexd.memory.records import item_json
from memexd.recall.model import summary
from memexd.types import JSONObject

__all__ = ["answer", "guarded", "item_data", "item_line", "item_lines", "refusal"]

P = ParamSpec("P")

_SUMMARY = 120


def answer(text: str, data: JSONObject) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def refusal(exc: MemexError) -> CallToolResult:
    message = exc.message if exc.public else "the request failed inside memexd"
    return CallToolResult(
        content=[TextContent(type="text", text=f"{exc.code}: {message}")],
        structured_content={"error": {"code": exc.code, "message": message}},
        is_error=True,
    )


def item_line(item: Item) -> str:
    marks = "".join(
        f", {word}" for word, on in (("retracted", item.retracted), ("archived", item.archived))
        if on
    )  # fmt: skip
    text = summary(item.content, _SUMMARY) or "(no text)"
    return f"[{item.id}] {item.kind} in {item.scope}, authority {item.authority:.2f}{marks}: {text}"


def item_lines(items: Iterable[Item], empty: str = "(none)") -> str:
    lines = [f"- {item_line(i)}" for i in items]
    return "\n".join(lines) if lines else empty


def item_data(item: Item) -> JSONObject:
    return {**item_json(item), "retracted": item.retracted, "archived": item.archived}


def guarded(
    tool: Callable[P, Awaitable[CallToolResult]],
) -> Callable[P, Awaitable[CallToolResult]]:
    """``tool`` with memexd's errors answered as tool errors (its signature,
    which the SDK turns into the input schema, kept)."""

    @functools.wraps(tool)
    async def call(*args: P.args, **kwargs: P.kwargs) -> CallToolResult:
        try:
            return await tool(*args, **kwargs)
        except MemexError as exc:
            return refusal(exc)

    return call

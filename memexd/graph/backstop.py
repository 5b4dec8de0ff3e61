"""A backstop for commands an engine never answers (memexd.graph.falkordb)."""

from __future__ import annotations

import asyncio
import math
from typing import Any

__all__ = ["Backstop"]


class Backstop:
    """Cancels a command still running ``seconds`` after it was sent: an
    engine that stopped answering (its own query timeout answers first).

    One timer for all commands in flight, re-armed for the oldest when it
    fires: a timer per command (``asyncio.timeout`` on uvloop) costs ~5 µs.
    A command is cancelled at the first firing after its deadline, never
    before; as with ``asyncio.timeout``, only the backstop's own
    cancellation counts as expiry (``Task.uncancel``).
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        #: task -> (deadline, the task's cancellation count when watched)
        self._running: dict[asyncio.Task[Any], tuple[float, int]] = {}
        self._expired: set[asyncio.Task[Any]] = set()
        self._timer: asyncio.TimerHandle | None = None

    def watch(self) -> asyncio.Task[Any] | None:
        task = asyncio.current_task()
        if task is None or self.seconds is None:
            return None
        loop = task.get_loop()
        deadline = loop.time() + self.seconds
        self._running[task] = (deadline, task.cancelling())
        if self._timer is None:
            self._timer = loop.call_at(deadline, self._check, loop)
        return task

    def expired(self, task: asyncio.Task[Any] | None) -> bool:
        """Whether the backstop cancelled ``task`` (and nobody else did)."""
        if task is None or task not in self._expired:
            return False
        _, cancelling = self._running[task]
        return task.uncancel() <= cancelling

    def unwatch(self, task: asyncio.Task[Any] | None) -> None:
        # the timer stays: cancelling and re-arming it per command is what it saves
        if task is not None:
            del self._running[task]
            self._expired.discard(task)

    def _check(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        now, next_deadline = loop.time(), math.inf
        for task, (deadline, _) in self._running.items():
            if deadline <= now:
                if task not in self._expired:
                    self._expired.add(task)
                    task.cancel()
            else:
                next_deadline = min(next_deadline, deadline)
        if next_deadline < math.inf:
            self._timer = loop.call_at(next_deadline, self._check, loop)

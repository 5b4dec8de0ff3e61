"""A job type's contract (:class:`Kind`) and the checks of its ``params``.

``params`` is a JSON object whose keys each type names; an unknown key, a
value of the wrong shape or out of range is ``BAD_USER_INPUT`` at runJob /
createSchedule, before anything is queued.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import Any, Protocol

from memexd.errors import BadUserInput
from memexd.jobs.run import JobRun
from memexd.types import JSONObject

__all__ = ["Kind", "known", "number"]


class Kind(Protocol):
    """One job type: its params' check, and its run (batches through
    :meth:`JobRun.step`), returning the result."""

    def check(self, params: Any) -> JSONObject: ...

    async def run(self, run: JobRun) -> JSONObject: ...


def known(params: Any, keys: Collection[str]) -> JSONObject:
    """``params`` as an object holding only ``keys`` (None: empty)."""
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise BadUserInput("must be a JSON object", field="params")
    unknown = sorted(set(params) - set(keys))
    if unknown:
        allowed = ", ".join(sorted(keys)) or "none"
        raise BadUserInput(f"unknown keys {unknown} (this job takes: {allowed})", field="params")
    return dict(params)


def number(params: JSONObject, key: str, low: float, high: float) -> float | None:
    """A finite number within ``[low, high]``, or None when absent."""
    value = params.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadUserInput("must be a finite number", field=f"params.{key}")
    if not low <= value <= high:
        raise BadUserInput(f"must be within [{low:g}, {high:g}]", field=f"params.{key}")
    return float(value)

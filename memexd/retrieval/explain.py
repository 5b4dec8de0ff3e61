"""Why a smart retrieval left a candidate out: "why wasn't this in my context?".

Every candidate the pipeline read and did not take has one reason, the first
stage that dropped it:

- ``SUPERSEDED``: an active SUPERSEDES edge from a readable live item (``by``);
- ``CONTRADICTION``: it lost a contradiction (FILTER) to ``by`` (itself, for a
  self-contradiction);
- ``DIVERSITY_PENALTY``: the budget was spent when its turn came, and it is
  the penalty that cost it its turn: where its score before penalties would
  have placed it, enough budget was still left for it;
- ``OVER_BUDGET``: its cost was more than the budget left at its turn.

Candidates asked about by id that the pipeline never read are either
``BELOW_CUTOFF`` (they rank after the last candidate read, where nothing
left could fit the budget), ``SUPERSEDED``, or ``NOT_A_CANDIDATE`` (missing,
retracted, unreadable or not matched by the filter: the caller cannot tell
these apart, by design).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass

from memexd.retrieval.budget import Entry
from memexd.retrieval.diversity import Penalty
from memexd.retrieval.pipeline import Outcome

__all__ = ["Exclusion", "below_cutoff", "exclusions", "not_a_candidate", "superseded"]


@dataclass(frozen=True, slots=True)
class Exclusion:
    id: str
    reason: str
    message: str
    #: the score before penalties
    score: float | None = None
    #: the score after diversity penalties (candidates that got that far)
    adjusted: float | None = None
    penalty: Penalty | None = None
    cost: float | None = None
    #: the budget left when its turn came
    remaining: float | None = None
    #: the items that superseded it, or the one it lost a contradiction to
    by: tuple[str, ...] = ()


def exclusions(outcome: Outcome) -> list[Exclusion]:
    """Every candidate read and left out, in score order (ties by id)."""
    keys = [(-e.adjusted, e.row.rank) for e in outcome.placed]

    def room(e: Entry) -> float:
        """The budget left where its score before penalties would have placed it."""
        at = bisect_left(keys, (-e.row.score, e.row.rank))
        turn = outcome.placed[at].turn if at < len(outcome.placed) else None
        return outcome.remaining if turn is None else turn

    return [_why(e, room, outcome.remaining) for e in outcome.entries if not e.taken]


def _why(e: Entry, room: Callable[[Entry], float], remaining: float) -> Exclusion:
    if e.row.superseded_by:
        return superseded(e.id, e.row.score, e.row.superseded_by)
    if e.lost_to is not None:
        what = "contradicts itself" if e.lost_to == e.id else f"lost a contradiction to {e.lost_to}"
        return Exclusion(e.id, "CONTRADICTION", what, e.row.score, by=(e.lost_to,))
    # never placed (the stream stopped first): too big for what was left at the end
    left = remaining if e.turn is None else e.turn
    unpenalized = room(e)
    penalty = 0.0 if e.penalty is None else e.penalty.total
    if penalty > 0 and e.cost <= unpenalized:
        reason = "DIVERSITY_PENALTY"
        message = (
            f"diversity penalty {penalty:g} moved it below items that used the budget: "
            f"at its place before penalties {unpenalized:g} was left for its cost {e.cost:g}"
        )
    else:
        reason, message = "OVER_BUDGET", f"costs {e.cost:g}; {left:g} of the budget was left"
    return Exclusion(e.id, reason, message, e.row.score, e.adjusted, e.penalty, e.cost, left)


def superseded(item_id: str, score: float | None, by: tuple[str, ...]) -> Exclusion:
    return Exclusion(item_id, "SUPERSEDED", f"superseded by {', '.join(by)}", score, by=by)


def below_cutoff(item_id: str, score: float, remaining: float) -> Exclusion:
    return Exclusion(
        item_id, "BELOW_CUTOFF",
        f"ranked after the last candidate read, where nothing left could fit the "
        f"{remaining:g} of the budget left", score, remaining=remaining,
    )  # fmt: skip


def not_a_candidate(item_id: str) -> Exclusion:
    return Exclusion(
        item_id,
        "NOT_A_CANDIDATE",
        "not a candidate: missing, retracted, unreadable or not matched by the filter",
    )

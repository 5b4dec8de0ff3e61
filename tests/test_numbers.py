"""Stored doubles come back to the last digit (``shapes/exact``), although
FalkorDB's replies print doubles with 15 significant digits."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memexd.core import Memex
from memexd.events.vocabulary import Origin
from memexd.memory.model import NewEdge, NewItem
from memexd.settings import Settings
from memexd.types import GraphStore

SCORES = st.floats(0.0, 1.0) | st.sampled_from([0.1 + 0.2, 0.8 * 0.1, 5e-324, 2.0**-10, 1e-300])
WEIGHTS = st.floats(allow_nan=False, allow_infinity=False)
SLOW = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip


def same(a: float | None, b: float | None) -> bool:
    """Equal to the last bit, the sign of zero included."""
    if a is None or b is None:
        return a is b
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


@SLOW
@given(scores=st.tuples(SCORES, SCORES | st.none(), SCORES | st.none()), weight=WEIGHTS)
async def test_scores_and_weights_read_back_exactly(
    store: GraphStore, scores: tuple[float, float | None, float | None], weight: float
) -> None:
    core = Memex(store, Settings())
    authority, conviction, importance = scores
    draft = NewItem(scope="s", kind="k", content={}, author="agent:a", source_kind="observed",
                    authority=authority, conviction=conviction, importance=importance)  # fmt: skip
    (item,), _ = await core.items.create([draft], Origin())
    edge, _ = await core.edges.create(
        NewEdge(item.id, item.id, "SUPPORTS", "agent:a", "observed", authority, weight=weight),
        Origin(),
    )
    read = (await core.item_reads.get_many([item.id]))[item.id]
    back = (await core.edge_reads.get_many([edge.edge_id]))[edge.edge_id]
    assert same(read.authority, authority)
    assert same(read.conviction, conviction)
    assert same(read.importance, importance)
    assert same(back.authority, authority)
    assert same(back.weight, weight)
    intent, _ = await core.intents.create({"label": "l", "owner": "o", "priority": authority},
                                          "s", Origin())  # fmt: skip
    found = await core.intent_reads.get(intent.id)
    assert found is not None
    assert same(found.data["priority"], authority)

"""Whatever a client stores comes back unchanged (strings, numbers, JSON)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import Api

TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40
)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(1 << 53), 1 << 53)
    | st.floats(allow_nan=False, allow_infinity=False, width=64)
    | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    content=st.dictionaries(TEXT, JSON_VALUES, max_size=5),
    meta=st.dictionaries(TEXT, JSON_VALUES, max_size=5),
    author=TEXT.filter(lambda s: s != "" and all(c >= " " and c != "\x7f" for c in s)),
)
async def test_values_round_trip(api: Api, content: dict[str, Any], meta: dict[str, Any],
                                 author: str) -> None:  # fmt: skip
    item = await api.create(content=content, meta=meta, author=author)
    got = await api.ok("query($id: ID!) { item(id: $id) { content meta author } }", id=item["id"])
    assert got["item"] == {"content": content, "meta": meta, "author": author}

"""FalkorDB's parameter header: a table of plain values (the positional rows
of bulk statements, lists of ids) goes in one orjson call, and the engine reads it as it
reads the value-by-value encoding."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from memexd.errors import BadUserInput
from memexd.graph.falkordb_wire import _table, encode_params
from memexd.types import GraphStore

TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
               max_size=24)  # fmt: skip
CELLS = (TEXT | st.floats(allow_nan=False, allow_infinity=False) | st.booleans() | st.none()
         | st.integers(-(1 << 63), (1 << 63) - 1) | st.lists(TEXT, max_size=3))  # fmt: skip
TABLES = (st.lists(st.lists(CELLS, max_size=6), min_size=1, max_size=6)
          | st.lists(CELLS, min_size=1, max_size=8))  # fmt: skip
SLOW = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
#: Control characters that orjson escapes as \uXXXX, which FalkorDB reads literally.
_UXXXX = {chr(c) for c in range(0x20)} - set("\n\r\t\b\f")


def strings(rows: list[object]) -> list[str]:
    nested = all(isinstance(row, list) for row in rows)
    out: list[str] = []
    for cell in (c for row in rows for c in row) if nested else rows:  # type: ignore[attr-defined]
        out.extend(cell if isinstance(cell, list) else [cell] if isinstance(cell, str) else [])
    return out


@pytest.mark.engines("falkordb")  # the header is FalkorDB's wire format
@SLOW
@given(rows=TABLES)
@example(rows=[8.988465674311579e307, 8.98846567431158e307])  # finite, their sum is not
async def test_a_table_reads_as_its_value_by_value_encoding(
    store: GraphStore, rows: list[object]
) -> None:
    assume(None not in rows)  # null = null is null in Cypher
    assume(all(None not in row for row in rows if isinstance(row, list)))
    if not any(set(s) & _UXXXX for s in strings(rows)):
        assert _table(rows) is not None  # the one-call way is taken
    # a tuple takes the value-by-value way
    answer = await store.read("RETURN $fast = $slow AS same", {"fast": rows, "slow": tuple(rows)})
    assert answer == [{"same": True}]


@pytest.mark.engines("falkordb")  # the header is FalkorDB's wire format
async def test_nulls_in_a_table_read_back(store: GraphStore) -> None:
    rows = [["a", None, 0.5], [None, 'q"\\\n\t', -3]]
    answer = await store.read("UNWIND $rows AS r RETURN r", {"rows": rows})
    assert [a["r"] for a in answer] == rows


def test_what_a_table_cannot_carry_goes_value_by_value() -> None:
    table = encode_params({"t": [["é\n", 1.5, None, ["x"]]]})
    assert table == 'CYPHER `t`=[["é\\n",1.5,null,["x"]]] '
    assert _table([["a\x01b"]]) is None  # orjson would write \u0001
    assert encode_params({"t": [["a\x01b"]]}) == 'CYPHER `t`=[["a\x01b"]] '
    for cell in (float("nan"), float("inf"), 1 << 63, "a\x00", {"k": 1}):
        assert _table([[cell]]) is None
    for bad in (float("nan"), float("-inf"), -(1 << 63) - 1, "a\x00"):
        with pytest.raises(BadUserInput):
            encode_params({"t": [["ok", bad]]})
    assert _table([["a"], "not a row"]) == b'[["a"],"not a row"]'  # a flat list
    assert _table([["a", {"k": 1}]]) is None
    assert _table([]) is None

"""Neo4j's reads sent packed (memexd.graph.packed): a statement's columns are
learnt once, from its first answer, for every text of it."""

from __future__ import annotations

import re
from typing import Any

import neo4j
import pytest

from memexd.graph.cypher import Queries, query_names
from memexd.graph.packed import PACKED, Packer, returned
from tests.support import Api

#: Schema statements (their columns are not a read's).
_CREATES = re.compile(r"^\s*(CREATE|DROP)\b", re.IGNORECASE)
FIND = "query($f: MemoryFilter) { items(filter: $f, limit: 5) { id } }"


def test_a_statements_columns_serve_each_new_text_of_it() -> None:
    """Columns read from the last RETURN pack a text from its first send; a
    text they cannot be read from (``RETURN *``) is sent as it is once, and
    its answer's columns then serve every text of its statement."""
    packer = Packer()
    packed = packer.packed("// item_find\nMATCH (n) WHERE a RETURN n.id AS id, n")
    assert packed is not None
    assert packed.columns == ("id", "n")
    assert packed.text.endswith(f"RETURN collect([`id`, `n`]) AS {PACKED}")
    assert packed.unpack([{PACKED: [[1, 2], [3, 4]]}]) == [{"id": 1, "n": 2}, {"id": 3, "n": 4}]
    first, other = "// all\nMATCH (n) WHERE a RETURN *", "// all\nMATCH (n) WHERE b RETURN *"
    assert packer.packed(first) is None  # nothing known yet: sent as it is
    packer.learn(first, ("n",))
    assert packer.packed(other) is not None
    packer.refuse(other)  # Neo4j would not take this text packed
    assert packer.packed(other) is None
    assert packer.packed(first) is not None


def test_a_text_without_a_name_is_its_own_statement() -> None:
    packer = Packer()
    packer.learn("MATCH (n) RETURN *", ("n",))
    assert packer.packed("MATCH (m) RETURN *") is None
    assert packer.packed("MATCH (n) RETURN *") is not None
    packer.learn("// a\nRETURN *", ("x",))
    assert packer.packed("// b\nRETURN *") is None  # another statement


def test_columns_are_read_from_the_last_top_level_return() -> None:
    assert returned("CALL { MATCH (x) RETURN x } WITH x RETURN DISTINCT count(x) AS c, x "
                    "ORDER BY c LIMIT 3") == ("c", "x")  # fmt: skip
    assert returned("RETURN {a: 1, b: [1, 2]} AS m, 'a, b RETURN' AS `we ird` // RETURN z") == (
        "m", "we ird"
    )  # fmt: skip
    assert returned("MATCH (n) RETURN n.id UNION ALL MATCH (n) RETURN n.id") == ("n.id",)
    assert returned("RETURN $limit AS n, x.skip LIMIT 1") == ("n", "x.skip")
    assert returned("MATCH (n) RETURN *") is None
    assert returned("MATCH (n) SET n.x = 1") is None


@pytest.mark.engines("neo4j")
async def test_a_new_filter_is_sent_packed_at_once(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neo4j plans each text once: every text of a statement goes packed
    from its first send."""
    store: Any = api.store.inner  # the Neo4j store, whose runs are watched
    sent: list[str] = []
    run = store._run

    async def spy(mode: Any, text: str, params: Any) -> Any:
        sent.append(text)
        return await run(mode, text, params)

    monkeypatch.setattr(store, "_run", spy)
    made = await api.create(kind="fact", author="user:a")
    for flt in ({"kind": "fact"}, {"kind": "fact", "author": "user:a"}, {"author": "user:a"}):
        assert [i["id"] for i in (await api.ok(FIND, f=flt))["items"]] == [made["id"]]
    finds = [t for t in sent if "// item_find\n" in t]
    assert len({t.replace(PACKED, "") for t in finds}) >= 3
    assert all(PACKED in t for t in finds), finds  # its columns read from its text


@pytest.mark.engines("neo4j")
def test_every_statements_columns_read_from_its_text_are_neo4js(
    request: pytest.FixtureRequest,
) -> None:
    """The columns :func:`returned` reads from each statement's last RETURN
    are exactly the ones Neo4j names (``EXPLAIN``: planned, not run)."""
    server = request.getfixturevalue("neo4j")
    queries = Queries("neo4j")
    names = [n for n in query_names("neo4j") if not n.startswith(("fragments/", "shapes/"))]
    checked = 0
    with neo4j.GraphDatabase.driver(server.uri, auth=(server.user, server.password)) as db:
        for name in names:
            text = queries.get(name).text
            columns = returned(text)
            if columns is None or _CREATES.match(text):
                continue
            with db.session() as session:
                keys = tuple(session.run("CYPHER 5 EXPLAIN " + text).keys())
            assert columns == keys, name
            checked += 1
    assert checked > 100

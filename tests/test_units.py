"""Pure logic: ids, settings, meta flattening, parameter encoding, Cypher files."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memexd.errors import BadUserInput, InvalidTimestamp
from memexd.graph.cypher import Queries, parse
from memexd.graph.falkordb import encode_params
from memexd.ids import check_uuid, check_uuid7, new_id, timestamp_ms, uuid7_at
from memexd.memory.meta import canonical_json, flatten_meta, path_keys
from memexd.settings import Settings, load_settings


def test_new_ids_are_uuid7_and_strictly_increasing() -> None:
    ids = [new_id() for _ in range(5_000)]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    assert all(check_uuid7(i) == i for i in ids)


@given(st.integers(0, (1 << 48) - 1))
def test_uuid7_carries_its_timestamp(ms: int) -> None:
    assert timestamp_ms(uuid7_at(ms)) == ms


def test_id_checks() -> None:
    assert (
        check_uuid("0190A0A0-0000-7000-8000-00000000000A") == "0190a0a0-0000-7000-8000-00000000000a"
    )
    for bad in (
        "",
        "x",
        "0190a0a0000070008000000000000000",
        "{0190a0a0-0000-7000-8000-000000000000}",
    ):
        with pytest.raises(BadUserInput):
            check_uuid(bad)
    with pytest.raises(InvalidTimestamp):
        check_uuid7("0190a0a0-0000-4000-8000-000000000000")
    with pytest.raises(InvalidTimestamp):
        timestamp_ms("0190a0a0-0000-4000-8000-000000000000")


def test_settings_precedence_and_casts(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        "MEMEXD_PORT=9000\nMEMEXD_GRAPHIQL=false\n# comment\nMEMEXD_HOST='0.0.0.0'\n"
    )
    settings = load_settings({"host": "h"}, environ={"MEMEXD_PORT": "9100"}, env_file=env_file)
    assert (settings.host, settings.port, settings.graphiql) == ("h", 9100, False)
    assert load_settings(environ={}, env_file=None) == Settings()
    with pytest.raises(ValueError, match="MEMEXD_PORT"):
        load_settings(environ={"MEMEXD_PORT": "eighty"}, env_file=None)
    assert "secret" not in repr(
        load_settings(environ={"MEMEXD_GRAPH_PASSWORD": "secret"}, env_file=None)
    )


def test_meta_flattening() -> None:
    meta = {"agent_id": "a", "tags": {"env": "prod", "n": [1, 2.0]}, "none": None,
            "odd key": 1, "big": 1 << 70, "f": 2.0}  # fmt: skip
    assert flatten_meta(meta) == {
        "meta.agent_id": "a",
        "metaj.tags": '{"env":"prod","n":[1,2]}',
        "meta.tags.env": "prod",
        "metaj.tags.n": "[1,2]",
        "metaj.none": "null",
        "meta.big": float(1 << 70),
        "meta.f": 2,
    }
    assert canonical_json({"b": 1, "a": [1.0, {"c": None}]}) == '{"a":[1,{"c":null}],"b":1}'
    assert path_keys("a.b-c_d") == ("meta.a.b-c_d", "metaj.a.b-c_d")
    for bad in ("", "a b", "a..b", ".a", "a.", "a`b", "x" * 129):
        with pytest.raises(BadUserInput):
            path_keys(bad)


def test_parameter_header_encoding() -> None:
    header = encode_params({"s": 'a"b\\c\nd', "l": [1, 2.5, None, True], "m": {"k.x": False}})
    assert header == 'CYPHER `s`="a\\"b\\\\c\nd" `l`=[1,2.5,null,true] `m`={`k.x`:false} '
    for bad in ({"x": float("nan")}, {"x": float("inf")}, {"x": 1 << 63}, {"x": "a\x00"},
                {"x": {"a`b": 1}}):  # fmt: skip
        with pytest.raises(BadUserInput):
            encode_params(bad)


def test_cypher_files_declare_params_and_slots() -> None:
    query = parse(
        "t", "// doc\n// @params a b\nMATCH (n) WHERE n.x = $a AND /*<f>*/true/*</f>*/ RETURN $b"
    )
    assert query.params == {"a", "b"}
    assert query.slots == {"f": "true"}
    text, params = query.bind({"a": 1, "b": 2}, {})
    assert text.endswith("AND /*<f>*/true/*</f>*/ RETURN $b")
    assert params == {"a": 1, "b": 2}
    with pytest.raises(KeyError):
        query.bind({"a": 1}, {})
    with pytest.raises(KeyError):
        query.bind({"a": 1, "b": 2}, {"nope": "x"})
    with pytest.raises(ValueError, match="undeclared"):
        parse("t", "// @params a\nRETURN $a, $c")


def test_fragments_rename_their_parameters_apart() -> None:
    queries = Queries("falkordb")
    one, two = queries.fragment("scope_eq", value="a"), queries.fragment("scope_eq", value="b")
    assert one.text != two.text
    assert set(one.params).isdisjoint(two.params)
    assert sorted(one.params.values()) == ["a"]
    text, params = queries.get("item_find").bind(
        {"include_retracted": False, "offset": 0, "limit": 1}, {"filter": one}
    )
    assert one.text in text
    assert params[next(iter(one.params))] == "a"


def test_every_query_file_loads() -> None:
    root = Path(__file__).resolve().parents[1] / "cypher"
    names = [str(p.relative_to(root).with_suffix("")) for p in root.rglob("*.cypher")]
    assert len(names) > 40
    for backend in ("falkordb", "neo4j"):
        queries = Queries(backend)
        for name in names:
            if not name.startswith(("falkordb/", "neo4j/")):
                queries.get(name)

"""Pure logic: ids, settings, meta flattening, parameter encoding, Cypher files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memexd.errors import BadUserInput, InvalidTimestamp, SettingsError
from memexd.graph import Graph
from memexd.graph.cypher import Fragment, Queries, _source, parse
from memexd.graph.falkordb_wire import encode_params
from memexd.ids import MAX_TIME_MS, ms_to_datetime, new_id, timestamp_ms, uuid7_at
from memexd.memory.creation import COLUMNS
from memexd.memory.filters import MemoryFilter, prepare, to_cypher
from memexd.memory.meta import canonical_json, flatten_meta, path_keys
from memexd.memory.validation import (
    Limits,
    check_edge_kind,
    check_meta_path,
    check_uuid,
    check_uuid7,
)
from memexd.settings import Settings, load_settings


def test_new_ids_are_uuid7_and_strictly_increasing() -> None:
    ids = [new_id() for _ in range(5_000)]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    assert all(check_uuid7(i) == i for i in ids)


@given(st.integers(0, MAX_TIME_MS))
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
        "0190a0a0-0000-7000-8000-000000000000\n",
        "\n0190a0a0-0000-7000-8000-000000000000",
        "0190a0a0-0000-7000-8000-000000000000 ",
        None,
        7,
    ):
        with pytest.raises(BadUserInput):
            check_uuid(bad)
    with pytest.raises(InvalidTimestamp):
        check_uuid7("0190a0a0-0000-4000-8000-000000000000")
    with pytest.raises(InvalidTimestamp, match="9999"):
        check_uuid7("ffffffff-ffff-7fff-bfff-ffffffffffff")
    # the last millisecond of 9999 is still a time
    last = uuid7_at(253_402_300_799_999)
    assert check_uuid7(last) == last
    assert ms_to_datetime(1 << 48).year == 9999  # reads clamp what a datetime cannot hold


def test_kinds_and_paths_are_full_matches() -> None:
    assert check_edge_kind("SUPPORTS") == "SUPPORTS"
    for bad in ("SUPPORTS\n", "supports", "S-X", "", "PARENT", "A" * 65, " SUPPORTS"):
        with pytest.raises(BadUserInput):
            check_edge_kind(bad)
    assert check_meta_path("a.b-c_d") == "a.b-c_d"
    for bad in ("", "a b", "a..b", ".a", "a.", "a`b", "x" * 129, "a\n", "a.b\n"):
        with pytest.raises(BadUserInput):
            check_meta_path(bad)


def test_settings_precedence_and_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        "MEMEXD_PORT=9000\nMEMEXD_GRAPHIQL=false\n# comment\nMEMEXD_HOST='0.0.0.0'\n"
    )
    monkeypatch.setenv("MEMEXD_PORT", "9100")
    settings = load_settings({"host": "h", "port": None}, env_file=env_file)
    assert (settings.host, settings.port, settings.graphiql) == ("h", 9100, False)
    monkeypatch.delenv("MEMEXD_PORT")
    assert load_settings(env_file=None) == Settings()
    for name, value, says in [
        ("MEMEXD_PORT", "eighty", "MEMEXD_PORT"),
        ("MEMEXD_PORT", "-1", "MEMEXD_PORT"),
        ("MEMEXD_PORT", "70000", "MEMEXD_PORT"),
        ("MEMEXD_LOG_LEVEL", "loud", "MEMEXD_LOG_LEVEL"),
        ("MEMEXD_FSYNC", "never", "MEMEXD_FSYNC"),
        ("MEMEXD_MAX_PAGE", "0", "MEMEXD_MAX_PAGE"),
        ("MEMEXD_GRAPH_URI", "mysql://u:hunter2@db/x", "unsupported scheme"),
        ("MEMEXD_GRAPH_URI", "falkor://u:hunter2@host:port", "not a URI"),
    ]:
        monkeypatch.setenv(name, value)
        with pytest.raises(SettingsError, match=says) as failed:
            load_settings(env_file=None)
        assert "hunter2" not in str(failed.value)
        assert "\n" not in str(failed.value)
        monkeypatch.delenv(name)
    monkeypatch.setenv("MEMEXD_LOG_LEVEL", "DEBUG")
    assert load_settings(env_file=None).log_level == "debug"
    monkeypatch.setenv("MEMEXD_GRAPH_PASSWORD", "hunter2-pw")
    loaded = load_settings(env_file=None)
    assert "hunter2-pw" not in repr(loaded)
    assert loaded.password() == "hunter2-pw"


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


def test_equal_filters_give_equal_cypher() -> None:
    """Fragments are numbered per query: the engines' plan caches see one text."""
    graph = Graph(_NoStore())
    flt = MemoryFilter(scope="a", not_=MemoryFilter(scope="b"))

    def compiled(f: MemoryFilter) -> Fragment:
        return to_cypher(prepare(f, Limits(), now_ms=0), graph)

    first, second = compiled(flt), compiled(flt)
    assert first.text == second.text
    assert first.params == second.params == {"f0_value": "a", "f1_value": "b"}
    other = compiled(MemoryFilter(scope="x", not_=MemoryFilter(scope="y")))
    assert other.text == first.text
    assert other.params == {"f0_value": "x", "f1_value": "y"}
    text, params = graph.queries.get("item_find").bind(
        {"include_retracted": False, "offset": 0, "limit": 1, "readable": [""]}, {"filter": first}
    )
    assert first.text in text
    assert params["f1_value"] == "b"


def test_filters_are_normalised() -> None:
    """Negations are pushed down to single predicates and double negation cancels."""
    limits = Limits()
    deep = MemoryFilter(kind="k")
    for _ in range(8):
        deep = MemoryFilter(not_=deep)
    assert prepare(deep, limits, 0) == prepare(MemoryFilter(kind="k"), limits, 0)
    text = to_cypher(
        prepare(
            MemoryFilter(
                not_=MemoryFilter(or_=[MemoryFilter(kind="a"), MemoryFilter(kind="b", author="c")])
            ),
            limits,
            0,
        ),
        Graph(_NoStore()),
    ).text
    assert text.count("NOT coalesce") == 3
    assert "NOT coalesce((" not in text  # only single predicates are negated


def test_every_query_file_loads() -> None:
    root = Path(__file__).resolve().parents[1] / "cypher"
    names = [str(p.relative_to(root).with_suffix("")) for p in root.rglob("*.cypher")]
    assert len(names) > 40
    for backend in ("falkordb", "neo4j"):
        queries = Queries(backend)
        for name in names:
            if not name.startswith(("falkordb/", "neo4j/")):
                queries.get(name)


class _NoStore:
    """Compiling needs the query files only, not an engine."""

    backend = "falkordb"


def test_item_create_reads_positional_rows_in_column_order() -> None:
    # the node's properties are set by one shape, for item_create and item_promote
    assert "@item_node(n, r, $extras[i])" in _source("falkordb", "item_create")
    source = _source("falkordb", "shapes/item_node")
    pairs = re.findall(r"`?([\w.]+)`?: (?:@interned\()?row\[(\d+)\]", source)
    assert [name for name, _ in pairs] == list(COLUMNS)
    assert [int(k) for _, k in pairs] == list(range(len(COLUMNS)))

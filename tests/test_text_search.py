"""Text search (``searchItems``) through the engine's full-text index, on
unless MEMEXD_TEXT_SEARCH=false."""

from __future__ import annotations

import pytest

from memexd.graph import Graph
from memexd.memory.text import ensure_index
from tests.conftest import ApiFactory
from tests.support import Api

SEARCH = """query($text: String!, $f: MemoryFilter, $limit: Int, $all: Boolean! = false) {
  searchItems(text: $text, filter: $f, limit: $limit, includeRetracted: $all) { id } }"""


async def found(api: Api, text: str, **variables: object) -> list[str]:
    data = await api.ok(SEARCH, text=text, **variables)
    return [item["id"] for item in data["searchItems"]]


async def test_words_find_items_through_the_index(searching: Api) -> None:
    api = searching
    cats = await api.create(scope="p:a", content={"note": "The cats were running fast"})
    dog = await api.create(scope="p:b", content={"note": "a dog runs", "tags": ["pets"]})
    await api.create(scope="p:a", content={"note": "nothing to see"})
    assert await found(api, "cat") == [cats["id"]]  # stemmed
    assert set(await found(api, "RUN")) == {cats["id"], dog["id"]}
    assert await found(api, "dog pets") == [dog["id"]]  # every word
    assert await found(api, "dog cats") == []
    assert await found(api, "run", f={"scopePrefix": "p:a"}) == [cats["id"]]
    assert len(await found(api, "run", limit=1)) == 1
    # operators of the index's query syntax are only punctuation here
    assert await found(api, "-dog | @note:cats*") == []
    assert set(await found(api, "(run)")) == {cats["id"], dog["id"]}


async def test_retracted_items_on_request_and_grants(searching: Api) -> None:
    api = searching
    mine = await api.create(scope="team:a/x", content={"w": "shared word"})
    other = await api.create(scope="team:b/x", content={"w": "shared word"})
    await api.ok('mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }',
                 id=other["id"])  # fmt: skip
    assert await found(api, "shared") == [mine["id"]]
    assert set(await found(api, "shared", all=True)) == {mine["id"], other["id"]}
    reader = api.with_grants("read:team:a/")
    assert [i["id"] for i in (await reader.ok(SEARCH, text="shared", all=True))["searchItems"]] == [
        mine["id"]
    ]  # fmt: skip


@pytest.mark.parametrize(
    "text", ["", "  !!! ", " ".join(f"w{i}" for i in range(17)), "x" * 65, "a " * 501]
)
async def test_bad_text_is_refused_before_the_engine(searching: Api, text: str) -> None:
    assert await searching.codes(SEARCH, text=text) == ["BAD_USER_INPUT"]


async def test_turned_off_it_says_so(make_api: ApiFactory) -> None:
    api = await make_api(text_search=False)  # on by default
    await api.create(content={"w": "word"})
    assert await api.codes(SEARCH, text="word") == ["UNSUPPORTED"]
    assert await api.codes(SEARCH, text="") == ["BAD_USER_INPUT"]  # checked first all the same


async def test_the_index_follows_the_setting(api: Api) -> None:
    graph: Graph = api.graph

    async def present() -> int:
        return int((await graph.read("text_index_exists"))[0]["found"])

    assert await present() == 0
    await ensure_index(graph, True)
    await ensure_index(graph, True)  # already there: nothing to do
    assert await present() == 1
    await ensure_index(graph, False)
    assert await present() == 0
    await ensure_index(graph, False)

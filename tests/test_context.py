"""Context blocks (SPEC §11): sections, order, byte budgets, determinism,
decay order, access tracking, cues, profiles and grants."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memexd.ids import uuid7_at
from memexd.memory.text import ensure_index
from tests.support import Api

BLOCK = """query($i: ContextInput!) { context(input: $i) {
  text bytes accessTracked sections { title items { id } } items { id } } }"""
PROFILE = """query($p: String, $t: PromotionTag, $n: Int) { profile(scopePrefix: $p, tag: $t,
  limit: $n) { text sections { title items { id } } } }"""
T0 = 1_750_000_000_000
DAY = 86_400_000


async def block(api: Api, **given: Any) -> dict[str, Any]:
    got: dict[str, Any] = (await api.ok(BLOCK, i=given))["context"]
    return got


def day(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d")


async def note(api: Api, ms: int, text: str, **fields: Any) -> str:
    fields.setdefault("scope", "proj:a")
    item = await api.create(id=uuid7_at(ms), content={"text": text}, **fields)
    return str(item["id"])


async def test_an_empty_selection_gives_an_empty_block(api: Api) -> None:
    got = await block(api)
    assert (got["text"], got["bytes"], got["items"]) == ("", 0, [])
    titles = ["Project profile", "Summaries", "Task context", "Discoveries"]
    assert [(s["title"], s["items"]) for s in got["sections"]] == [(t, []) for t in titles]


async def test_sections_in_order_one_line_an_item(api: Api) -> None:
    rule = await note(api, T0, "deploys go out on Tuesdays\nsecond line is left out")
    older = await note(api, T0 - DAY, "the API is versioned by path")
    summary = await note(api, T0 + 1, "sprint summary: auth done", kind="summary")
    mine = await note(api, T0 + 2, "checkpoint: tests green", kind="checkpoint",
                      lifecycle="SESSION", sessionId="s1")  # fmt: skip
    await note(api, T0 + 3, "another session's note", lifecycle="SESSION", sessionId="s2")
    found = await note(api, T0 + 4, "the cache hides a race", kind="discovery")
    await note(api, T0 + 5, "scratch", lifecycle="EPHEMERAL")  # in no section
    got = await block(api, sessionId="s1")
    assert got["text"] == (
        "## Project profile\n"
        f"- [{rule}] ({day(T0)}): deploys go out on Tuesdays\n"
        f"- [{older}] ({day(T0 - DAY)}): the API is versioned by path\n"
        "\n## Summaries\n"
        f"- [{summary}] ({day(T0)}): sprint summary: auth done\n"
        "\n## Task context\n"
        f"- [{mine}] ({day(T0)}): checkpoint: tests green\n"
        "\n## Discoveries\n"
        f"- [{found}] ({day(T0)}): the cache hides a race\n"
    )
    assert got["bytes"] == len(got["text"].encode())
    assert [i["id"] for i in got["items"]] == [rule, older, summary, mine, found]
    assert got == await block(api, sessionId="s1")  # the same bytes again
    outside = await block(api, scopePrefix="elsewhere")
    assert outside["text"] == ""


async def test_ties_break_by_id_and_decay_can_order(api: Api) -> None:
    same = [await note(api, T0, f"rule {n}") for n in range(3)]  # one ms: ids decide
    got = await block(api)
    assert [i["id"] for i in got["items"]] == sorted(same)
    old = await note(api, T0 - 10 * DAY, "critical and old", priority="P0")
    now = datetime.fromtimestamp((T0 + DAY) / 1000, UTC).isoformat()
    by_decay = await block(api, sortByDecay=True, now=now)
    assert by_decay["items"][0]["id"] == old  # 2 x e^(-11/30) > 1 x e^(-1/30)
    assert (await block(api))["items"][-1]["id"] == old  # newest first otherwise
    short = await block(api, sortByDecay=True, now=now, halfLifeMs=1.0)
    assert [i["id"] for i in short["items"]] == sorted([*same, old])  # all 0: ties by id


async def test_never_over_max_bytes_with_multibyte_content(api: Api) -> None:
    for n in range(30):
        await note(api, T0 + n, "東京の天気 🌧️ " * 40)  # long lines, 3 and 4 byte characters
        await note(api, T0 + n, f"summary {n} ü", kind="summary")
    for budget in (256, 300, 1000, 4096, 65_536):
        got = await block(api, maxBytes=budget)
        raw = got["text"].encode()
        assert len(raw) <= budget
        assert got["bytes"] == len(raw)
        raw.decode()  # whole characters only
        assert "## Summaries" in got["text"] or budget < 512
        lines = [line for line in got["text"].splitlines() if line.startswith("- ")]
        assert all(len(line.encode()) <= 240 for line in lines)
    shared = await block(api, maxBytes=2000)
    profile, summaries = (len(s["items"]) for s in shared["sections"][:2])
    assert abs(profile - summaries) <= 1 or summaries == 30  # taken in turn


async def test_bad_input_is_refused(api: Api) -> None:
    for given in ({"maxBytes": 255}, {"maxBytes": 65_537}, {"maxBytes": 0},
                  {"taskId": "not-a-uuid"}, {"sessionId": ""}, {"halfLifeMs": 0.0},
                  {"cue": ""}):  # fmt: skip
        assert await api.codes(BLOCK, i=given) == ["BAD_USER_INPUT"], given
    assert await api.codes(PROFILE, p=None, t=None, n=101) == ["BAD_USER_INPUT"]


async def test_track_access_counts_what_the_block_holds(api: Api) -> None:
    a = await note(api, T0, "one")
    b = await note(api, T0 + 1, "two", kind="summary")
    got = await block(api, trackAccess=True)
    assert got["accessTracked"] == 2
    counts = await api.ok("query($i: [ID!]!) { items(filter: {ids: $i}) { access { count } } }",
                          i=[a, b])  # fmt: skip
    assert [i["access"]["count"] for i in counts["items"]] == [1, 1]
    assert (await block(api))["accessTracked"] == 0


async def test_profile_takes_the_newest_project_items_with_a_tag(api: Api) -> None:
    a = await note(api, T0, "decided: postgres", tags=["decision"])
    b = await note(api, T0 + 1, "convention: snake case", tags=["convention"])
    await note(api, T0 + 2, "a session note", lifecycle="SESSION")
    got = await api.ok(PROFILE, p=None, t=None, n=None)
    assert [i["id"] for i in got["profile"]["sections"][0]["items"]] == [b, a]
    tagged = await api.ok(PROFILE, p="proj:", t="DECISION", n=None)
    assert (
        tagged["profile"]["text"] == f"## Project profile\n- [{a}] ({day(T0)}): decided: postgres\n"
    )
    assert len((await api.ok(PROFILE, p=None, t=None, n=1))["profile"]["sections"][0]["items"]) == 1


async def test_a_cue_orders_each_section_by_recall(make_api: Any) -> None:
    api: Api = await make_api(embedding="off", text_search=True)
    await ensure_index(api.graph, True)
    crane = await note(api, T0, "the harbour crane needs new cables")
    await note(api, T0 + 1, "lunch moved to friday")
    got = await block(api, cue="harbour crane")
    assert [i["id"] for i in got["items"]] == [crane]  # recall finds only what matches
    await ensure_index(api.graph, False)


async def test_a_reader_sees_only_what_it_may_read(api: Api) -> None:
    mine = await note(api, T0, "tenant a rule", scope="tenant:a/x")
    await note(api, T0, "tenant b rule", scope="tenant:b/x")
    reader = api.with_grants("read:tenant:a/")
    got = await block(reader)
    assert [i["id"] for i in got["items"]] == [mine]
    assert "tenant b" not in got["text"]

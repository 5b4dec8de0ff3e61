"""memexd over MCP, through the official SDK's client: Streamable HTTP at
``/mcp`` on a real ``memexd serve``, and ``memexd mcp`` over stdio (on its
own, and relaying to the server). Every tool is listed and called; answers
are checked against GraphQL's; grants, bad arguments and bad credentials."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult

from memexd.access.keys import KeyStore
from memexd.mcp.memory import NOTHING
from tests.engines import Engine
from tests.feed_client import Writer
from tests.processes import MEMEXD, environment, serve, stop

QUIET = {"MEMEXD_LOG_LEVEL": "warning"}
TOOLS = {"remember", "recall", "context", "why", "impact", "forget", "link",
         "contradictions", "resolve_contradiction", "plan", "add_task", "move_task",
         "move_intent", "plans", "as_of", "undo"}  # fmt: skip
MISSING = "01a00000-0000-7000-8000-000000000000"


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, module_engine: Engine
) -> Iterator[dict[str, str]]:
    """One ``memexd serve`` for the module, with keys: an agent writing
    agents/a/, a reader of agents/a/, another tenant writing t2/."""
    data = tmp_path_factory.mktemp("mcp") / "data"
    keys = KeyStore(data / "keys.json")
    made = {name: keys.create(name, grants)[1] for name, grants in (
        ("agent", ["write:agents/a/"]), ("reader", ["read:agents/a/"]), ("other", ["write:t2/"]),
        ("admin", ["admin:"]),
    )}  # fmt: skip
    url, process = serve(data, engine=module_engine, **QUIET)
    yield {"url": url, **made}
    stop(process)


@asynccontextmanager
async def over_http(url: str, key: str | None) -> AsyncIterator[Client]:
    headers = {} if key is None else {"Authorization": f"Bearer {key}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http), cache=None) as client,
    ):
        yield client


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's structured answer; fails on a tool error."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.content
    assert result.content[0].type == "text"
    assert result.content[0].text
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def refused(client: Client, tool: str, **arguments: Any) -> str:
    """The text of a tool error (the connection stays up: listed after)."""
    result: CallToolResult = await client.call_tool(tool, arguments)
    assert result.is_error, result
    assert (await client.list_tools()).tools
    text = result.content[0]
    assert text.type == "text"
    return text.text


async def remember(client: Client, text: str, scope: str = "agents/a/notes", **more: Any) -> str:
    return str((await call(client, "remember", content=text, scope=scope, **more))["item"]["id"])


# ---------------------------------------------------------------- over HTTP


async def test_every_tool_is_listed_with_a_schema_and_a_description(
    server: dict[str, str],
) -> None:
    async with over_http(server["url"], server["agent"]) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        templates = (await client.list_resource_templates()).resource_templates
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert len(tool.description or "") > 20, tool.name
        assert tool.input_schema["type"] == "object", tool.name
    assert tools["recall"].input_schema["required"] == ["cue"]
    assert tools["recall"].annotations is not None
    assert tools["recall"].annotations.read_only_hint
    assert {t.uri_template for t in templates} == {
        "memexd://item/{id}", "memexd://context{?scope_prefix,cue}"}  # fmt: skip


async def test_remember_why_impact_forget_agree_with_graphql(server: dict[str, str]) -> None:
    gql = Writer(server["url"], server["agent"])
    async with over_http(server["url"], server["agent"]) as client:
        root = await remember(client, "the staging database runs postgres 16")
        child = await remember(client, "so the migration needs pg_dump 16", parents=[root])
        leaf = await remember(client, "schedule the dump on friday", parents=[child])
        item = (await gql.ok("query($id: ID!) { item(id: $id) { content parents author } }",
                             id=child))["item"]  # fmt: skip
        assert item == {"content": {"text": "so the migration needs pg_dump 16"},
                        "parents": [root], "author": "agent"}  # fmt: skip

        why = await call(client, "why", id=leaf)
        query = "query($id: ID!) { supportTree(id: $id) { nodes { item { id } depth } } }"
        tree = (await gql.ok(query, id=leaf))["supportTree"]
        assert [(n["item"]["id"], n["depth"]) for n in why["nodes"]] == [
            (n["item"]["id"], n["depth"]) for n in tree["nodes"]]  # fmt: skip
        assert why["gone"] == []
        query = "query($id: ID!) { item(id: $id) { effectiveAuthority trustPath { id } } }"
        trusted = (await gql.ok(query, id=leaf))["item"]
        assert why["effective_authority"] == trusted["effectiveAuthority"] == 0.5
        assert why["trust_path"] == [i["id"] for i in trusted["trustPath"]] == [root, child, leaf]

        impact = await call(client, "impact", id=root)
        below = (await gql.ok("query($id: ID!) { dependents(id: $id, transitive: true) { id } }",
                              id=root))["dependents"]  # fmt: skip
        assert impact["count"] == 1 + len(below) == 3
        assert {i["id"] for i in impact["items"]} == {root, child, leaf}

        assert "confirm" in await refused(client, "forget", id=root, cascade=True)
        assert (await refused(client, "forget", id=root, cascade=True, confirm=2)).startswith(
            "CONFLICT"
        )
        await call(client, "forget", id=child, reason="wrong version")
        why = await call(client, "why", id=leaf)
        assert why["gone"] == [{"id": child, "state": "retracted"}]
        text = (await client.call_tool("why", {"id": leaf})).content[0]
        assert text.type == "text"
        assert f"parent {child} is retracted" in text.text
        done = await call(client, "forget", id=root, cascade=True, confirm=1)
        assert done["retracted"] == [root]


async def test_recall_context_and_the_item_resource(server: dict[str, str]) -> None:
    gql = Writer(server["url"], server["agent"])
    async with over_http(server["url"], server["agent"]) as client:
        wanted = await remember(client, "the kettle in the office kitchen is broken",
                                scope="agents/a/office")  # fmt: skip
        await remember(client, "lunch on thursdays is at noon", scope="agents/a/office")
        hits = await call(client, "recall", cue="broken kettle", scope_prefix="agents/a/office",
                          mode="TEXT")  # fmt: skip
        query = """query($i: RecallInput!) { recall(input: $i) { item { id } score } }"""
        office = {"scopePrefix": "agents/a/office"}
        same = await gql.ok(query, i={"cue": "broken kettle", "mode": "TEXT", "filter": office})
        assert [h["item"]["id"] for h in hits["hits"]] == [wanted]
        assert [h["item"]["id"] for h in same["recall"]] == [wanted]
        assert set(hits["hits"][0]["why"]) >= {"text"}
        hybrid = await call(client, "recall", cue="kettle", scope_prefix="agents/a/office")
        assert wanted in [h["item"]["id"] for h in hybrid["hits"]]
        # nothing as relevant as asked (this server recalls by words only, which
        # has no default floor): no hit, said in words; min_score 0 lists them all
        far = "which office telescope photographed Saturn?"
        asked = {"cue": far, "scope_prefix": "agents/a/office", "min_score": 0.99}
        result = await client.call_tool("recall", asked)
        assert result.content[0].type == "text"
        assert result.content[0].text == NOTHING
        assert result.structured_content == {"hits": []}
        every = await call(client, "recall", cue=far, scope_prefix="agents/a/office", min_score=0)
        assert all(h["relevance"] < 0.99 for h in every["hits"])
        assert wanted in [h["item"]["id"] for h in every["hits"]]

        block = await call(client, "context", scope_prefix="agents/a/office")
        assert wanted in block["ids"]
        assert "kettle" in block["text"]
        read = await client.read_resource(f"memexd://item/{wanted}")
        first = read.contents[0]
        assert first.mime_type == "application/json"
        assert "kettle" in first.text
        assert wanted in first.text
        ctx = await client.read_resource("memexd://context?scope_prefix=agents/a/office")
        assert "kettle" in ctx.contents[0].text  # type: ignore[union-attr]


async def test_links_and_contradictions(server: dict[str, str]) -> None:
    gql = Writer(server["url"], server["agent"])
    async with over_http(server["url"], server["agent"]) as client:
        a = await remember(client, "the api limit is 100 requests a minute", scope="agents/a/api")
        b = await remember(client, "the api limit is 1000 requests a minute", scope="agents/a/api",
                           links=[{"to": a, "kind": "CONTRADICTS"}])  # fmt: skip
        c = await remember(client, "the docs page says 1000", scope="agents/a/api")
        await call(client, "link", a=c, b=b, kind="SUPPORTS")
        await call(client, "link", a=c, b=a, kind="ALIAS")
        listed = await call(client, "contradictions")
        pairs = {(x["a"]["id"], x["b"]["id"]) for x in listed["contradictions"]}
        query = "{ contradictions { a { id } b { id } } }"
        assert pairs == {(x["a"]["id"], x["b"]["id"])
                         for x in (await gql.ok(query))["contradictions"]}  # fmt: skip
        assert (b, a) in pairs
        await call(client, "resolve_contradiction", winner_id=b, loser_id=a)
        after = (await call(client, "contradictions"))["contradictions"]
        assert (b, a) not in {(x["a"]["id"], x["b"]["id"]) for x in after}
        query = "query($f: EdgeFilter) { edges(filter: $f) { kind from to } }"
        kinds = set()
        for way in ("from", "to"):
            kinds |= {(e["kind"], e["from"], e["to"])
                      for e in (await gql.ok(query, f={way: c}))["edges"]}  # fmt: skip
        assert {("SUPPORTS", c, b), ("ALIAS", c, a), ("ALIAS", a, c)} <= kinds


async def test_the_intent_and_task_lifecycle(server: dict[str, str]) -> None:
    async with over_http(server["url"], server["agent"]) as client:
        intent = (await call(client, "plan", label="ship the release", scope="agents/a/"))["intent"]
        task = (await call(client, "add_task", intent_id=intent["id"], action="run tests"))["task"]
        assert task["status"] == "pending"
        started = await call(client, "move_task", id=task["id"], action="start")
        assert started["task"]["status"] == "running"
        assert started["task"]["agent_id"] == "agent"
        assert (await refused(client, "move_task", id=task["id"], action="start")).startswith(
            "INVALID_TASK_TRANSITION"
        )
        await call(client, "move_task", id=task["id"], action="complete", result={"passed": 12})
        plans = await call(client, "plans")
        mine = [p for p in plans["intents"] if p["intent"]["id"] == intent["id"]]
        assert mine
        assert mine[0]["tasks"][0]["status"] == "completed"
        await call(client, "move_intent", id=intent["id"], action="complete")
        done = await call(client, "plans", status="completed")
        assert intent["id"] in [p["intent"]["id"] for p in done["intents"]]


async def test_grants_hold_over_mcp(server: dict[str, str]) -> None:
    async with over_http(server["url"], server["other"]) as other:
        theirs = await remember(other, "tenant two's secret plan", scope="t2/plans")
    async with over_http(server["url"], server["agent"]) as agent:
        mine = await remember(agent, "a plan of my own", scope="agents/a/plans")
        hits = await call(agent, "recall", cue="secret plan", mode="TEXT")
        assert theirs not in str(hits)
        for tool, args in (("why", {"id": theirs}), ("impact", {"id": theirs})):
            assert (await refused(agent, tool, **args)) == (await refused(agent, tool, id=MISSING)
                                                            ).replace(MISSING, theirs)  # fmt: skip
        with pytest.raises(MCPError):
            await agent.read_resource(f"memexd://item/{theirs}")
        assert (await refused(agent, "remember", content="x", scope="t2/plans")).startswith(
            "FORBIDDEN"
        )
        assert theirs not in str(await call(agent, "contradictions"))
    async with over_http(server["url"], server["reader"]) as reader:
        assert (await refused(reader, "remember", content="x", scope="agents/a/")).startswith(
            "FORBIDDEN"
        )
        assert (await refused(reader, "forget", id=mine)).startswith("FORBIDDEN")
        assert mine in str(await call(reader, "impact", id=mine))


@pytest.mark.parametrize(("tool", "arguments", "code"), [
    ("remember", {"scope": "agents/a/"}, "content"),                     # missing
    ("remember", {"content": 5, "scope": "agents/a/"}, "content"),       # wrong type
    ("remember", {"content": "x", "scope": "agents/a/", "authority": 2}, "authority"),
    ("remember", {"content": "x", "scope": ""}, "BAD_USER_INPUT"),
    ("remember", {"content": "x" * 300_000, "scope": "agents/a/"}, "BAD_USER_INPUT"),
    ("remember", {"content": "x", "scope": "agents/a/", "parents": ["nope"]}, "BAD_USER_INPUT"),
    ("remember", {"content": "x", "scope": "agents/a/",
                  "links": [{"to": MISSING, "kind": "SUPPORTS"}]}, "MEMORY_NOT_FOUND"),
    ("remember", {"content": "x", "scope": "agents/a/",
                  "links": [{"to": MISSING, "kind": "PARENT"}]}, "kind"),
    ("recall", {"cue": ""}, "BAD_USER_INPUT"),
    ("recall", {"cue": "x", "limit": 1000}, "limit"),
    ("recall", {"cue": "y" * 100_000}, "BAD_USER_INPUT"),
    ("why", {"id": MISSING}, "MEMORY_NOT_FOUND"),
    ("impact", {"id": "not-an-id"}, "BAD_USER_INPUT"),
    ("forget", {"id": MISSING}, "MEMORY_NOT_FOUND"),
    ("forget", {"id": MISSING, "confirm": 1}, "BAD_USER_INPUT"),
    ("link", {"a": MISSING, "b": MISSING, "kind": "SUPPORTS"}, "MEMORY_NOT_FOUND"),
    ("move_task", {"id": MISSING, "action": "explode"}, "action"),
    ("move_task", {"id": MISSING, "action": "start"}, "TASK_NOT_FOUND"),
    ("nonexistent_tool", {}, "nonexistent_tool"),
])  # fmt: skip
async def test_bad_arguments_are_tool_errors_and_nothing_is_written(
    server: dict[str, str], tool: str, arguments: dict[str, Any], code: str
) -> None:
    gql = Writer(server["url"], server["admin"])
    before = (await gql.ok("{ stats { items { total } } }"))["stats"]["items"]
    async with over_http(server["url"], server["agent"]) as client:
        assert code in await refused(client, tool, **arguments)
    assert (await gql.ok("{ stats { items { total } } }"))["stats"]["items"] == before


async def test_following_an_item_tells_when_it_changes(server: dict[str, str]) -> None:
    async with over_http(server["url"], server["agent"]) as agent:
        a = await remember(agent, "the office wifi password rotates monthly")
        b = await remember(agent, "unrelated: the plants need water")
        async with agent.listen(resource_subscriptions=[f"memexd://item/{a}"]) as followed:
            assert followed.honored.resource_subscriptions == [f"memexd://item/{a}"]
            events = aiter(followed)
            await call(agent, "link", a=b, b=a, kind="SUPPORTS")  # an edge event about a
            assert (await asyncio.wait_for(anext(events), 30)).uri == f"memexd://item/{a}"  # type: ignore[union-attr]
            await call(agent, "forget", id=b)  # about b only: not delivered
            await call(agent, "forget", id=a)
            assert (await asyncio.wait_for(anext(events), 30)).uri == f"memexd://item/{a}"  # type: ignore[union-attr]
    async with over_http(server["url"], server["other"]) as other:
        theirs = await remember(other, "tenant two's roadmap", scope="t2/plans")
    async with over_http(server["url"], server["agent"]) as agent:
        said = {}
        for name, uris in (("theirs", [f"memexd://item/{theirs}"]),
                           ("missing", [f"memexd://item/{MISSING}"]),
                           ("context", ["memexd://context"]),
                           ("too many", [f"memexd://item/{a}"] * 101)):  # fmt: skip
            with pytest.raises(MCPError) as refusal:
                async with agent.listen(resource_subscriptions=uris):
                    pass
            said[name] = str(refusal.value)
        assert said["theirs"].replace(theirs, "?") == said["missing"].replace(MISSING, "?")
        assert "MEMORY_NOT_FOUND" in said["missing"]
        assert "BAD_USER_INPUT" in said["context"]
        assert "BAD_USER_INPUT" in said["too many"]
        assert (await agent.list_tools()).tools


async def test_credentials_are_checked_before_the_protocol(server: dict[str, str]) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for headers in ({}, {"Authorization": "Bearer mxk_unknown"}, {"Authorization": "Basic x"}):
        answer = httpx.post(f"{server['url']}/mcp", json=body, headers=headers)
        assert answer.status_code == 401, answer.text
        assert answer.json()["error"]["code"] == "UNAUTHENTICATED"
        assert answer.headers["www-authenticate"].startswith("Bearer")
    huge = {**body, "params": {"padding": "x" * 5_000_000}}
    auth = {"Authorization": f"Bearer {server['agent']}"}
    assert httpx.post(f"{server['url']}/mcp", json=huge, headers=auth).status_code == 413
    with pytest.raises(ExceptionGroup) as caught:  # the SDK's task groups wrap it
        async with over_http(server["url"], "mxk_unknown") as client:
            await client.list_tools()
    assert "Server returned an error response" in repr(caught.value)


async def test_undo_takes_back_what_a_call_did_and_as_of_tells_what_was(
    server: dict[str, str],
) -> None:
    async with over_http(server["url"], server["agent"]) as client:
        keep = await remember(client, "the staging database is pg-7")
        made = await call(client, "remember", content="the staging database is pg-9",
                          scope="agents/a/notes", parents=[keep])  # fmt: skip
        wrong, trace = made["item"]["id"], made["trace_id"]
        other = await call(client, "remember", content="x", scope="agents/a/notes")
        assert trace
        assert trace != other["trace_id"]  # a trace a call
        at = await server_now(server)
        plan = await call(client, "undo", trace_id=trace)  # a dry run unless told
        assert (plan["dry_run"], plan["retracted_item_ids"], plan["conflicts"]) == (
            True, [wrong], [])  # fmt: skip
        done = await call(client, "undo", trace_id=trace, dry_run=False, reason="wrong db")
        assert (done["dry_run"], done["retracted_item_ids"]) == (False, [wrong])
        assert "CONFLICT" in await refused(client, "undo", trace_id=trace, dry_run=False)
        then = await call(client, "as_of", id=wrong, at=at, support=True)
        assert then["item"]["id"] == wrong
        assert then["item"]["retracted"] is False
        assert [i["id"] for i in then["support"]] == [keep]
        assert "BAD_USER_INPUT" in await refused(client, "undo", trace_id="no such trace")
        assert "INVALID_TIMESTAMP" in await refused(client, "as_of", id=keep, at="yesterday")
        assert "BAD_USER_INPUT" in await refused(
            client, "as_of", id=keep, at="2999-01-01T00:00:00Z"
        )
    async with over_http(server["url"], server["reader"]) as reader:
        kept = await call(reader, "as_of", id=keep, at=at)
        assert kept["item"]["id"] == keep
    async with over_http(server["url"], server["agent"]) as client:
        mine = await call(client, "remember", content="t", scope="agents/a/notes")
    async with over_http(server["url"], server["other"]) as other:
        assert "FORBIDDEN" in await refused(other, "undo", trace_id=mine["trace_id"],
                                            dry_run=False)  # fmt: skip


async def server_now(server: dict[str, str]) -> str:
    """An instant after everything so far (the server shares this clock)."""
    await asyncio.sleep(0.01)
    now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    await asyncio.sleep(0.01)
    return now


# ---------------------------------------------------------------- over stdio


def stdio(*args: str, engine: Engine | None = None, **env: str) -> StdioServerParameters:
    return StdioServerParameters(command=MEMEXD[0], args=[*MEMEXD[1:], "mcp", *args],
                                 env=environment(engine, **QUIET, **env))  # fmt: skip


async def test_stdio_on_its_own(tmp_path: Path, graph_engine: Engine) -> None:
    data = str(tmp_path / "data")
    async with Client(stdio("--data-dir", data, engine=graph_engine), cache=None) as client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        root = await remember(client, "the build server is called hopper", scope="me/")
        leaf = await remember(client, "so deploys go through hopper", scope="me/", parents=[root])
        hits = await call(client, "recall", cue="build server", mode="TEXT")
        assert root in [h["item"]["id"] for h in hits["hits"]]
        assert (await call(client, "impact", id=root))["count"] == 2
        assert (await call(client, "why", id=leaf))["nodes"][1]["item"]["id"] == root
        assert "MEMORY_NOT_FOUND" in await refused(client, "why", id=MISSING)
        slip = await call(client, "remember", content="a mistake", scope="me/")
        undone = await call(client, "undo", trace_id=slip["trace_id"], dry_run=False)
        assert undone["retracted_item_ids"] == [slip["item"]["id"]]  # that call alone
    grants = ("--grant", "read:me/")
    narrowed = stdio("--data-dir", data, *grants, engine=graph_engine)
    async with Client(narrowed, cache=None) as client:
        assert (await call(client, "impact", id=root))["count"] == 2
        assert "FORBIDDEN" in await refused(client, "forget", id=leaf)


async def test_stdio_relays_to_a_server(server: dict[str, str]) -> None:
    params = stdio("--url", f"{server['url']}/mcp", MEMEXD_API_KEY=server["reader"])
    async with over_http(server["url"], server["agent"]) as agent:
        mine = await remember(agent, "relayed memories are the same memories")
    async with Client(params, cache=None) as client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        assert (await call(client, "impact", id=mine))["count"] == 1
        assert "FORBIDDEN" in await refused(client, "remember", content="x", scope="agents/a/")
        read = await client.read_resource(f"memexd://item/{mine}")
        assert "relayed memories" in read.contents[0].text  # type: ignore[union-attr]


@pytest.mark.engines("falkordb")  # only the embedded engine has a data directory to hold
def test_a_data_directory_a_server_holds_is_refused_with_the_way_round(
    tmp_path: Path, backend: str
) -> None:
    data = tmp_path / "data"
    _url, process = serve(data, **QUIET)
    try:
        argv = [*MEMEXD, "mcp", "--data-dir", str(data)]
        done = subprocess.run(argv, capture_output=True, env=environment(**QUIET), timeout=60,
                              stdin=subprocess.DEVNULL)  # fmt: skip
    finally:
        stop(process)
    assert done.returncode == 2
    assert b"in use by another memexd" in done.stderr
    assert b"--url" in done.stderr
    assert done.stdout == b""

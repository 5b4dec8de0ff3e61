"""memexd in a supergraph, as users run one: ``memexd serve`` with
``MEMEXD_FEDERATION`` and a second subgraph (projects) composed by npm
``@apollo/composition`` and served by ``@apollo/gateway`` on
``@apollo/server`` (``tools/federation``). Queries go through the gateway
and cross the subgraphs both ways; answers are compared whole."""

from __future__ import annotations

import json
import os
import select
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from memexd.access.keys import KeyStore
from tests.engines import Engine
from tests.processes import serve, stop

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "federation"
MISSING = "0190f0f0-0000-7000-8000-000000000000"


@dataclass
class Supergraph:
    gateway: str
    memexd: str
    writer: str
    reader: str
    hints: list[str]
    ids: dict[str, str]

    def query(self, query: str, key: str | None, **headers: str) -> dict[str, Any]:
        if key is not None:
            headers["authorization"] = f"Bearer {key}"
        response = httpx.post(self.gateway, json={"query": query}, headers=headers, timeout=30)
        body: dict[str, Any] = response.json()
        return body

    def data(self, query: str, key: str | None = None) -> dict[str, Any]:
        body = self.query(query, self.writer if key is None else key)
        assert "errors" not in body, body
        data: dict[str, Any] = body["data"]
        return data


def _direct(url: str, key: str, query: str, **variables: Any) -> dict[str, Any]:
    response = httpx.post(f"{url}/graphql", json={"query": query, "variables": variables},
                          headers={"authorization": f"Bearer {key}"})  # fmt: skip
    body = response.json()
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


def _fixtures(url: str, key: str) -> dict[str, str]:
    """Items in two tenants (one retracted), an edge, an intent and a task."""
    ids: dict[str, str] = {}
    create = """mutation($s: String!, $c: JSON!) { createItem(input: {scope: $s, kind: "note",
      content: $c, author: "user:ann", sourceKind: "observed", authority: 0.5})
      { item { id } } }"""
    for name, scope in (("a1", "tenant:a/notes"), ("a2", "tenant:a/notes"),
                        ("b1", "tenant:b/notes"), ("gone", "tenant:a/notes")):  # fmt: skip
        made = _direct(url, key, create, s=scope, c={"note": name})
        ids[name] = made["createItem"]["item"]["id"]
    _direct(url, key, 'mutation($i: ID!) { retractItem(id: $i, author: "user:ann", '
            'reason: "wrong") { events { type } } }', i=ids["gone"])  # fmt: skip
    edge = """mutation($a: ID!, $b: ID!) { createEdge(input: {from: $a, to: $b,
      kind: "SUPPORTS", author: "user:ann", sourceKind: "observed", authority: 0.5})
      { edge { edgeId } } }"""
    ids["edge"] = _direct(url, key, edge, a=ids["a1"], b=ids["a2"])["createEdge"]["edge"]["edgeId"]
    intent = """mutation { createIntent(input: {label: "launch", priority: 0.9,
      owner: "user:ann", scope: "tenant:a/"}) { intent { id } } }"""
    ids["intent"] = _direct(url, key, intent)["createIntent"]["intent"]["id"]
    task = """mutation($i: ID!) { createTask(input: {intentId: $i, action: "draft notes",
      priority: 0.5}) { task { id } } }"""
    ids["task"] = _direct(url, key, task, i=ids["intent"])["createTask"]["task"]["id"]
    return ids


def _start_gateway(url: str, key: str, projects: Path) -> tuple[subprocess.Popen[str], Any]:
    if not (TOOL / "node_modules" / "@apollo" / "gateway").is_dir():
        pytest.fail("Apollo's packages are missing: run `npm ci --prefix tools/federation`")
    process = subprocess.Popen(
        ["node", "supergraph.mjs", url, str(projects)], cwd=TOOL, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "MEMEXD_KEY": key},
    )  # fmt: skip
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], 60)
    line = process.stdout.readline() if ready else ""
    if not line:
        process.kill()
        pytest.fail(f"the gateway did not start: {process.stderr.read() if process.stderr else ''}")
    return process, json.loads(line)


@pytest.fixture(scope="module")
def supergraph(
    tmp_path_factory: pytest.TempPathFactory, module_engine: Engine
) -> Iterator[Supergraph]:
    data = tmp_path_factory.mktemp("federation") / "data"
    keys = KeyStore(data / "keys.json")
    _, writer = keys.create("writer", ["write:tenant:"])
    _, reader = keys.create("reader", ["read:tenant:a/"])
    url, memexd = serve(data, engine=module_engine, MEMEXD_FEDERATION="true")
    gateway = None
    try:
        ids = _fixtures(url, writer)
        projects = data.parent / "projects.json"
        projects.write_text(json.dumps([
            {"id": "p1", "name": "Apollo", "intentId": ids["intent"], "taskIds": [ids["task"]],
             "edgeIds": [ids["edge"]], "memoryIds": [ids["a1"], ids["b1"], ids["gone"], MISSING]},
            {"id": "p2", "name": "Gemini", "memoryIds": [ids["a1"], ids["a2"]]},
        ]))  # fmt: skip
        gateway, ready = _start_gateway(url, writer, projects)
        assert "errors" not in ready, ready
        yield Supergraph(ready["gateway"], url, writer, reader, ready["hints"], ids)
    finally:
        if gateway is not None:
            gateway.kill()
            gateway.wait()
        stop(memexd)


def test_composition_succeeds_without_hints(supergraph: Supergraph) -> None:
    assert supergraph.hints == []


def test_a_project_reaches_into_memexd_for_every_entity_type(supergraph: Supergraph) -> None:
    ids = supergraph.ids
    data = supergraph.data("""{ project(id: "p1") { name
      memories { id content scope }
      intent { id label status }
      tasks { id action intent { label } }
      edges { edgeId kind fromItem { content } toItem { content } } } }""")
    assert data == {"project": {
        "name": "Apollo",
        # b1 is out of no grant of the writer's, but retracted and missing ids are null
        "memories": [
            {"id": ids["a1"], "content": {"note": "a1"}, "scope": "tenant:a/notes"},
            {"id": ids["b1"], "content": {"note": "b1"}, "scope": "tenant:b/notes"},
            None,
            None,
        ],
        "intent": {"id": ids["intent"], "label": "launch", "status": "ACTIVE"},
        "tasks": [{"id": ids["task"], "action": "draft notes", "intent": {"label": "launch"}}],
        "edges": [{"edgeId": ids["edge"], "kind": "SUPPORTS",
                   "fromItem": {"content": {"note": "a1"}}, "toItem": {"content": {"note": "a2"}}}],
    }}  # fmt: skip


def test_memexd_items_reach_into_the_projects_subgraph(supergraph: Supergraph) -> None:
    ids = supergraph.ids
    data = supergraph.data(f"""{{ item(id: "{ids["a1"]}") {{ content
      projects {{ id name }} }} }}""")
    assert data == {"item": {"content": {"note": "a1"},
                             "projects": [{"id": "p1", "name": "Apollo"},
                                          {"id": "p2", "name": "Gemini"}]}}  # fmt: skip


def test_a_round_trip_crosses_both_ways_in_one_query(supergraph: Supergraph) -> None:
    ids = supergraph.ids
    data = supergraph.data("""{ projects { name memories { content projects { name } } } }""")
    assert data == {"projects": [
        {"name": "Apollo", "memories": [
            {"content": {"note": "a1"}, "projects": [{"name": "Apollo"}, {"name": "Gemini"}]},
            {"content": {"note": "b1"}, "projects": [{"name": "Apollo"}]},
            None, None]},
        {"name": "Gemini", "memories": [
            {"content": {"note": "a1"}, "projects": [{"name": "Apollo"}, {"name": "Gemini"}]},
            {"content": {"note": "a2"}, "projects": [{"name": "Gemini"}]}]},
    ]}  # fmt: skip
    listed = supergraph.data("""{ items(filter: {scopePrefix: "tenant:a/"},
      sort: [{field: RECENCY, order: ASC}]) { id projects { name } } }""")
    both = [{"name": "Apollo"}, {"name": "Gemini"}]
    assert listed == {"items": [{"id": ids["a1"], "projects": both},
                                {"id": ids["a2"], "projects": [{"name": "Gemini"}]}]}  # fmt: skip


def test_the_gateway_forwards_the_callers_credentials(supergraph: Supergraph) -> None:
    ids = supergraph.ids
    # (a selection of `id` alone is answered by the gateway from the reference)
    query = '{ project(id: "p1") { memories { id content } } items { id } }'
    seen = supergraph.data(query, key=supergraph.reader)
    # the reader holds tenant:a/ only: b1 is null exactly like a missing id
    assert seen == {"project": {"memories": [{"id": ids["a1"], "content": {"note": "a1"}},
                                             None, None, None]},
                    "items": [{"id": ids["a1"]}, {"id": ids["a2"]}]}  # fmt: skip
    refused = supergraph.query("{ items { id } }", key=None)
    assert refused["data"] is None
    assert [e["extensions"]["code"] for e in refused["errors"]] == ["UNAUTHENTICATED"]
    create = """mutation { createItem(input: {scope: "tenant:a/notes", kind: "note",
      content: {}, author: "user:r", sourceKind: "observed", authority: 0.5}) { item { id } } }"""
    denied = supergraph.query(create, key=supergraph.reader)
    assert [e["extensions"]["code"] for e in denied["errors"]] == ["FORBIDDEN"]


def test_writes_go_through_the_gateway_with_their_trace_id(supergraph: Supergraph) -> None:
    create = """mutation { createItem(input: {scope: "tenant:a/later", kind: "note",
      content: {note: "via gateway"}, author: "user:ann", sourceKind: "observed",
      authority: 0.5}) { item { id } events { type traceId } } }"""
    body = supergraph.query(create, supergraph.writer, **{"x-trace-id": "trace-fed-1"})
    assert "errors" not in body, body
    made = body["data"]["createItem"]
    assert made["events"] == [{"type": "memory.created", "traceId": "trace-fed-1"}]
    read = "query($i: ID!) { item(id: $i) { content } }"
    direct = _direct(supergraph.memexd, supergraph.writer, read, i=made["item"]["id"])
    assert direct == {"item": {"content": {"note": "via gateway"}}}


def test_operator_tools_stay_out_of_the_supergraph(supergraph: Supergraph) -> None:
    body = supergraph.query("mutation { replayCommands(commands: []) { applied } }",
                            supergraph.writer)  # fmt: skip
    assert body["errors"][0]["message"] == 'Cannot query field "replayCommands" on type "Mutation".'
    direct = _direct(supergraph.memexd, supergraph.writer,
                     "mutation { replayCommands(commands: []) { applied } }")  # fmt: skip
    assert direct == {"replayCommands": {"applied": 0}}  # still there, on memexd itself

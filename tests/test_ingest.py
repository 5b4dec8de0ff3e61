"""Bulk ingest: ``POST /items`` (NDJSON in, per-line results out) and
``memexd import`` of bare memory records (NDJSON or a JSON array), both the
same validation, grants and events as ``createItems``."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from memexd.core import Memex
from memexd.events.vocabulary import Origin
from memexd.graph import Statement
from memexd.graph.falkordb_wire import Encoded, encode_params
from memexd.graph.migrations import migrate
from memexd.ids import uuid7_at
from memexd.memory.creation import Prepared
from memexd.memory.items import ItemCommands
from memexd.settings import Settings
from memexd.transplant.memories import import_records
from memexd.transplant.slices import ImportOptions
from memexd.types import GraphStore, Params, Row
from tests.conftest import ApiFactory
from tests.engines import Engine
from tests.support import Api

NDJSON = {"content-type": "application/x-ndjson"}
CREATE_ITEMS = """mutation($i: [MemoryItemInput!]!) {
  createItems(inputs: $i) { items { id } events { type } } }"""
EVENTS = "{ events(limit: 100) { type payload traceId causeId } }"


@cache
def uid(n: int) -> str:
    return uuid7_at(1_700_000_000_000 + n)


def line(n: int, **fields: Any) -> dict[str, Any]:
    """A MemoryItemInput as JSON (camelCase), id ``uid(n)``."""
    return {"id": uid(n), "scope": "test", "kind": "observation", "content": {"n": n},
            "author": "user:t", "sourceKind": "observed", "authority": 0.5, **fields}  # fmt: skip


def body(*lines: Any) -> bytes:
    return b"".join(
        (raw if isinstance(raw, bytes) else json.dumps(raw).encode()) + b"\n" for raw in lines
    )


async def post(api: Api, content: bytes, query: str = "", **headers: str) -> Any:
    """The answer's status and its NDJSON lines (or its JSON body)."""
    response = await api.client.post(
        f"/items{query}", content=content, headers={**NDJSON, **api.headers, **headers}
    )
    if response.headers.get("content-type", "").startswith("application/x-ndjson"):
        return response.status_code, [json.loads(x) for x in response.text.splitlines()]
    return response.status_code, response.json()


def results(answer: list[dict[str, Any]]) -> dict[int, str]:
    """Line number to the id created or the error code."""
    return {r["line"]: r.get("id") or r["error"]["code"] for r in answer if "line" in r}


# ---------------------------------------------------------------- POST /items


async def test_lines_are_created_in_batches_and_answered_in_order(api: Api) -> None:
    lines = [line(n, parents=[uid(n - 1)] if n else None) for n in range(7)]
    status, answer = await post(api, body(*lines), "?batch=3")
    assert status == 200
    assert answer[:-1] == [{"line": n + 1, "id": uid(n)} for n in range(7)]
    assert answer[-1] == {"done": {"lines": 7, "created": 7, "failed": 0}}
    got = await api.ok(f'{{ item(id: "{uid(6)}") {{ parentItems {{ id }} content }} }}')
    assert got["item"] == {"parentItems": [{"id": uid(5)}], "content": {"n": 6}}
    events = (await api.ok(EVENTS))["events"]
    assert [e["payload"]["item"]["id"] for e in events] == [uid(n) for n in range(7)]
    assert {e["type"] for e in events} == {"memory.created"}


async def test_each_bad_line_fails_alone(api: Api) -> None:
    await api.ok(CREATE_ITEMS, i=[line(0)])  # uid(0) is taken
    status, answer = await post(api, body(
        line(1),
        b'{"scope": oops}',
        line(2, authority=1.5),
        line(3, colour="red"),
        b"[1, 2]",
        b"",
        line(0),  # taken before
        line(4, id="0190a000-0000-4000-8000-000000000000"),  # a UUIDv4: no time
        line(5),
        line(5, kind="again"),  # repeated: the first copy wins
        line(6, authority=10**30),
        line(7, scope=""),
    ), "?batch=4")  # fmt: skip
    assert status == 200
    assert results(answer) == {
        1: uid(1), 2: "BAD_USER_INPUT", 3: "BAD_USER_INPUT", 4: "BAD_USER_INPUT",
        5: "BAD_USER_INPUT", 7: "DUPLICATE_MEMORY", 8: "INVALID_TIMESTAMP", 9: uid(5),
        10: "DUPLICATE_MEMORY", 11: "BAD_USER_INPUT", 12: "BAD_USER_INPUT",
    }  # fmt: skip
    messages = {r["line"]: r["error"]["message"] for r in answer if "error" in r}
    assert messages[2].startswith("bad JSON")
    assert messages[3] == "authority: must be within [0, 1], got 1.5"
    assert messages[4] == "unknown fields ['colour'] (MemoryItemInput's names, camelCase)"
    assert uid(0) in messages[7]
    assert answer[-1] == {"done": {"lines": 11, "created": 2, "failed": 9}}
    found = await api.ok("{ items { id kind } }")
    assert sorted(i["id"] for i in found["items"]) == [uid(0), uid(1), uid(5)]


async def test_a_scope_the_key_cannot_write_fails_its_line(api: Api) -> None:
    writer = api.with_grants("write:tenant:a/")
    status, answer = await post(writer, body(
        line(1, scope="tenant:a/x"), line(2, scope="tenant:b/x"), line(3, scope="tenant:a/y")
    ))  # fmt: skip
    assert status == 200
    assert results(answer) == {1: uid(1), 2: "FORBIDDEN", 3: uid(3)}


async def test_events_are_those_of_create_items(api: Api) -> None:
    """The same inputs through createItems, then (the graph wiped) through
    /items: the same items and the same events, but for event times (and ids
    of events that are nodes of their own)."""
    inputs = [line(1, meta={"tags": ["a", "b"], "env": "prod"}, conviction=0.25),
              line(2, parents=[uid(1), uid(9)], importance=1, intentId=uid(8)),
              line(3, content={"deep": {"x": [1, 2.5, None]}})]  # fmt: skip
    headers = {"x-trace-id": "trace-1", "x-cause-id": "cause-1"}
    trace = {"x-trace-id": "trace-0"}  # both ways the same (else each gets one of its own)
    await api.run(CREATE_ITEMS, {"i": inputs}, **trace)
    await api.run(CREATE_ITEMS, {"i": inputs}, **headers)  # duplicates: changes nothing
    via_graphql = await graph_without_event_ids(api)
    await api.graph.write("admin_wipe")
    await migrate(api.graph)
    response = await api.client.post("/items", content=body(*inputs), headers={**NDJSON, **trace})
    assert response.status_code == 200
    assert await graph_without_event_ids(api) == via_graphql


async def graph_without_event_ids(api: Api) -> tuple[list[str], list[str]]:
    nodes, rels = await api.snapshot()
    cleaned = []
    for node in nodes:
        labels, props = json.loads(node)
        if "Migration" in labels:
            continue
        if "Event" in labels:
            props.pop("id"), props.pop("ts")
        if "Item" in labels:  # its memory.created event's time (docs/events.md)
            props.pop("logged_at", None)
        cleaned.append(json.dumps([labels, props], sort_keys=True))
    return sorted(cleaned), rels


async def test_trace_headers_reach_the_events(api: Api) -> None:
    headers = {"x-trace-id": "trace-7", "x-cause-id": "cause-7"}
    status, _ = await post(api, body(line(1)), **headers)
    assert status == 200
    events = (await api.ok(EVENTS))["events"]
    assert [(e["traceId"], e["causeId"]) for e in events] == [("trace-7", "cause-7")]


async def test_credentials_as_for_graphql(api: Api) -> None:
    api.keys.create("someone", ["read:"])  # a key exists: callers must authenticate
    for anonymous in (api.as_key(None), api.as_key("mxk_bogus_key")):
        status, answer = await post(anonymous, body(line(1)))
        assert status == 401
        assert answer["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    reader = api.with_grants("read:")
    status, answer = await post(reader, body(line(1)))
    assert status == 200
    assert results(answer) == {1: "FORBIDDEN"}
    status, answer = await post(api.with_grants("write:"), body(line(1)))
    assert results(answer) == {1: uid(1)}


async def test_request_limits(make_api: ApiFactory) -> None:
    api = await make_api(max_content_bytes=1024, max_ingest_bytes=64 * 1024, max_batch=10,
                         max_body_bytes=1024)  # fmt: skip
    long = line(2, content={"text": "x" * (3 * 1024 + 64 * 1024)})
    status, answer = await post(api, body(line(1), long, line(3)))
    assert status == 413  # over the ingest limit: refused before anything is read
    assert "65536" in answer["errors"][0]["message"]
    status, answer = await post(api, body(*(line(n) for n in range(20, 40))))
    assert status == 200, "/items bodies are bounded by the ingest limit, not the body limit"
    assert len(results(answer)) == 20
    status, answer = await post(api, body(line(1), line(2, content={"t": "x" * 2000}), line(3)))
    assert results(answer) == {1: uid(1), 2: "BAD_USER_INPUT", 3: uid(3)}
    for query in ("?batch=0", "?batch=11", "?batch=x"):
        status, answer = await post(api, body(line(4)), query)
        assert status == 400
        assert "MEMEXD_MAX_BATCH" in answer["errors"][0]["message"]
    status, answer = await post(api, body(line(4)), **{"content-type": "application/json"})
    assert status == 415
    assert (await api.client.get("/items")).status_code == 405


async def test_an_over_long_line_fails_unread(make_api: ApiFactory) -> None:
    api = await make_api(max_content_bytes=1024, max_ingest_bytes=1024 * 1024)
    limit = 2 * 1024 + 64 * 1024
    too_long = b'{"scope": "' + b"x" * limit + b'"}'
    status, answer = await post(api, body(line(1), too_long, line(3), too_long), "?batch=2")
    assert status == 200
    assert results(answer) == {1: uid(1), 2: "BAD_USER_INPUT", 3: uid(3), 4: "BAD_USER_INPUT"}
    message = next(r["error"]["message"] for r in answer if r.get("line") == 2)
    assert message == f"line longer than {limit} bytes"


async def test_a_body_cut_off_by_its_limit_says_so(make_api: ApiFactory) -> None:
    """A chunked body (no Content-Length) goes over the limit while lines are
    answered: the answer ends with the error instead of ``done``."""
    api = await make_api(max_ingest_bytes=4096)

    async def chunks() -> Any:
        for n in range(40):
            yield body(line(n))

    response = await api.client.post("/items?batch=2", content=chunks(), headers=NDJSON)
    answer = [json.loads(x) for x in response.text.splitlines()]
    assert answer[-1]["error"]["code"] == "BAD_USER_INPUT"
    assert "MEMEXD_MAX_INGEST_BYTES" in answer[-1]["error"]["message"]
    assert all(r.get("id") for r in answer[:-1])


async def test_the_body_is_read_while_the_answer_waits_for_the_client(api: Api) -> None:
    """Most clients send their whole body before they read the answer: the
    lines must be read, written and answered although nothing is taken."""
    app = api.client._transport.app  # type: ignore[attr-defined]
    chunks = [body(line(n)) for n in range(30)]
    read, taken, sent = 0, asyncio.Event(), []

    async def receive() -> dict[str, Any]:
        nonlocal read
        if read == len(chunks):
            await asyncio.Event().wait()  # the client sends nothing more
        read += 1
        return {"type": "http.request", "body": chunks[read - 1], "more_body": read < len(chunks)}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body":
            await taken.wait()  # the client reads nothing yet
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/items", "raw_path": b"/items",
             "query_string": b"batch=2", "root_path": "", "scheme": "http",
             "http_version": "1.1", "server": ("memexd", 80), "client": ("127.0.0.1", 1),
             "headers": [(b"content-type", b"application/x-ndjson")]}  # fmt: skip
    answering = asyncio.create_task(app(scope, receive, send))
    for _ in range(500):
        if read == len(chunks):
            break
        await asyncio.sleep(0.01)
    assert read == len(chunks), "the body was read to its end while the answer waited"
    taken.set()
    await asyncio.wait_for(answering, 30)
    answer = [json.loads(x) for m in sent if m.get("body") for x in m["body"].splitlines()]
    assert results(answer) == {n + 1: uid(n) for n in range(30)}
    assert answer[-1] == {"done": {"lines": 30, "created": 30, "failed": 0}}


# ---------------------------------------------------------------- memexd import


def record(n: int, **fields: Any) -> dict[str, Any]:
    """A MemEX memory record (snake_case), id ``uid(n)``."""
    return {"id": uid(n), "scope": "test", "kind": "observation", "content": {"n": n},
            "author": "user:t", "source_kind": "observed", "authority": 0.5, **fields}  # fmt: skip


async def test_import_records_in_pipelined_batches(store: GraphStore) -> None:
    memex = Memex(store, Settings(max_batch=3))
    records = [(f"line {n}", record(n, parents=[uid(n - 1)] if n else None)) for n in range(8)]
    report = await import_records(memex, records, ImportOptions(), Origin())
    assert report.created.memories == [uid(n) for n in range(8)]
    again = [(f"line {n}", record(n)) for n in (7, 8, 9, 8)]  # 7 exists; 8 twice
    report = await import_records(memex, again, ImportOptions(), Origin())
    assert report.json()["created"]["memories"] == [uid(8), uid(9)]
    assert report.json()["skipped"]["memories"] == [uid(7), uid(8)]
    kids = await memex.item_reads.children(uid(0))
    assert [k.id for k in kids] == [uid(1)]
    events = await memex.events.list(None, None, 100)
    assert len([e for e in events if e.type == "memory.created"]) == 10


class HeldWrites:
    """A store whose writes wait until the test lets them through."""

    def __init__(self, inner: GraphStore) -> None:
        self.inner, self.backend = inner, inner.backend
        self.writing, self.go = asyncio.Event(), asyncio.Event()

    async def read(self, text: str, params: Params) -> list[Row]:
        return await self.inner.read(text, params)

    async def write(self, text: str, params: Params) -> list[Row]:
        self.writing.set()
        await self.go.wait()
        return await self.inner.write(text, params)


async def test_the_next_batch_is_ready_while_one_is_written(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = HeldWrites(store)
    memex = Memex(held, Settings(max_batch=2))  # type: ignore[arg-type]
    made: list[Statement] = []
    statement = ItemCommands.statement

    def spy(self: ItemCommands, batch: Prepared) -> Statement:
        made.append(statement(self, batch))
        return made[-1]

    monkeypatch.setattr(ItemCommands, "statement", spy)
    records = [(f"line {n}", record(n)) for n in range(6)]
    run = asyncio.create_task(import_records(memex, records, ImportOptions(), Origin()))
    await held.writing.wait()
    for _ in range(100):  # the writer goes on while the first batch is held
        await asyncio.sleep(0.001)
    assert len(made) == 2, "batch 2 is built and encoded before batch 1 lands"
    if store.backend == "falkordb":
        assert all(type(s.params) is Encoded for s in made)
        assert made[1].params.wire == encode_params(dict(made[1].params)).encode()
    held.go.set()
    report = await run
    assert report.created.memories == [uid(n) for n in range(6)]
    assert len(made) == 3


MEMEXD = str(Path(sys.executable).with_name("memexd"))


def memexd(*args: str, cwd: Path, engine: Engine) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEXD_")}
    env |= engine.env() | {"MEMEXD_MAX_BATCH": "2"}
    return subprocess.run([MEMEXD, *args], capture_output=True, text=True, timeout=120,
                          env=env, cwd=cwd, check=False)  # fmt: skip


def test_memexd_import_takes_ndjson_and_arrays_of_records(
    tmp_path: Path, graph_engine: Engine
) -> None:
    ndjson = tmp_path / "memories.ndjson"
    ndjson.write_text("".join(json.dumps(record(n)) + "\n" for n in range(5)))
    done = memexd("import", str(ndjson), "--data-dir", "data", cwd=tmp_path, engine=graph_engine)
    assert done.returncode == 0, done.stderr
    assert "imported 5 records" in done.stdout
    assert "created: memories 5" in done.stdout
    array = tmp_path / "memories.json"
    array.write_text(json.dumps([record(n) for n in range(3, 7)], indent=1))
    done = memexd("import", str(array), "--data-dir", "data", "--report", "-", cwd=tmp_path,
                  engine=graph_engine)  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["created"]["memories"] == [uid(5), uid(6)]
    assert report["skipped"]["memories"] == [uid(3), uid(4)]


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (b'%s\n\n%s\n' % (json.dumps(record(1)).encode(), json.dumps(record(2, id=1)).encode()),
         "log: line 3: id: must be a string"),
        (b'%s\n%s\n' % (json.dumps(record(1)).encode(),
                        json.dumps(record(2, authority=2)).encode()),
         "log: line 2: authority: must be within [0, 1], got 2"),
        (b'[%s, {"id": "%s", "colour": 1}]' % (json.dumps(record(1)).encode(), uid(2).encode()),
         "log: element 1: unknown fields ['colour']"),
    ],
)  # fmt: skip
def test_a_bad_record_file_is_one_line_and_nothing_written(
    tmp_path: Path, graph_engine: Engine, content: bytes, error: str
) -> None:
    (tmp_path / "log").write_bytes(content)
    done = memexd("import", "log", "--data-dir", "data", cwd=tmp_path, engine=graph_engine)
    assert done.returncode == 1
    assert done.stderr.strip() == f"memexd: {error}", done.stderr
    assert not (tmp_path / "data").exists()

"""Access control in a running ``memexd serve``: the start-up rule beyond
loopback, and credentials on the WebSocket ``connection_init``."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from memexd.access.keys import KeyStore
from tests.engines import Engine
from tests.processes import MEMEXD, environment, free_port, serve, stop

PROTOCOL = "graphql-transport-ws"


def test_refuses_to_listen_beyond_loopback_without_authentication(
    tmp_path: Path, graph_engine: Engine
) -> None:
    argv = [*MEMEXD, "serve", "--host", "0.0.0.0", "--port", str(free_port()),
            "--data-dir", str(tmp_path / "data")]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, timeout=60, text=True,
                          env=environment(graph_engine))  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "refusing to listen on 0.0.0.0 without authentication" in lines[0]
    assert not (tmp_path / "data" / "appendonly.aof").exists()


def test_anonymous_beyond_loopback_only_when_allowed_and_with_a_warning(
    tmp_path: Path, graph_engine: Engine
) -> None:
    url, process = serve(tmp_path / "data", "--host", "0.0.0.0", engine=graph_engine,
                         MEMEXD_ALLOW_ANONYMOUS="true")  # fmt: skip
    try:
        answer = httpx.post(f"{url}/graphql", json={"query": "{ items { id } }"})
        assert answer.json() == {"data": {"items": []}}
    finally:
        stop(process)
    assert process.stderr is not None
    assert b"anyone who reaches 0.0.0.0 can read and write every scope" in process.stderr.read()


def test_a_key_lets_it_listen_beyond_loopback(tmp_path: Path, graph_engine: Engine) -> None:
    data = tmp_path / "data"
    _, key = KeyStore(data / "keys.json").create("ops", ["write:ops/"])
    url, process = serve(data, "--host", "0.0.0.0", engine=graph_engine)
    try:
        anonymous = httpx.post(f"{url}/graphql", json={"query": "{ items { id } }"})
        assert anonymous.status_code == 401
        bearer = {"Authorization": f"Bearer {key}"}
        answer = httpx.post(f"{url}/graphql", json={"query": "{ items { id } }"}, headers=bearer)
        assert answer.json() == {"data": {"items": []}}
    finally:
        stop(process)


async def _init(url: str, payload: Any) -> tuple[Any, Any]:
    """Open a connection, send connection_init (with ``payload`` unless None);
    the reply, or the close code and reason."""
    async with connect(url, subprotocols=[PROTOCOL]) as ws:  # type: ignore[list-item]
        message = {"type": "connection_init"}
        if payload is not None:
            message["payload"] = payload
        await ws.send(json.dumps(message))
        try:
            return json.loads(await asyncio.wait_for(ws.recv(), 10)), None
        except ConnectionClosed as closed:
            frame = closed.rcvd
        return None, None if frame is None else (frame.code, frame.reason)


async def _query(url: str, key: str, query: str) -> Any:
    async with connect(url, subprotocols=[PROTOCOL]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init",
                                  "payload": {"Authorization": f"Bearer {key}"}}))  # fmt: skip
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": query}}))
        return json.loads(await asyncio.wait_for(ws.recv(), 10))


@pytest.fixture
def secured(tmp_path: Path, graph_engine: Engine) -> Any:
    data = tmp_path / "data"
    keys = KeyStore(data / "keys.json")
    _, writer = keys.create("writer", ["write:tenant:"])
    _, reader = keys.create("reader", ["read:tenant:a/"])
    url, process = serve(data, engine=graph_engine)
    try:
        yield url, writer, reader
    finally:
        stop(process)


async def test_websocket_connection_init_needs_credentials(secured: Any) -> None:
    url, writer, reader = secured
    create = "mutation($s: String!) { createItem(input: {scope: $s, kind: \"k\", content: {}, " \
             "author: \"a\", sourceKind: \"o\", authority: 0.5}) { item { id } } }"  # fmt: skip
    made = {}
    auth = {"Authorization": f"Bearer {writer}"}
    async with httpx.AsyncClient(headers=auth, timeout=60) as client:  # a loaded CI is slow
        for scope in ("tenant:a/x", "tenant:b/x"):
            sent = {"query": create, "variables": {"s": scope}}
            body = (await client.post(f"{url}/graphql", json=sent)).json()
            made[scope] = body["data"]["createItem"]["item"]["id"]
    ws_url = url.replace("http://", "ws://") + "/graphql"
    for payload in (None, {}, {"Authorization": "Bearer mxk_nope"}, {"Authorization": 7}):
        reply, closed = await _init(ws_url, payload)
        assert reply is None
        assert closed is not None
        assert closed[0] == 4401
        assert closed[1].startswith("UNAUTHENTICATED")
    reply, closed = await _init(ws_url, {"Authorization": f"Bearer {reader}"})
    assert closed is None
    assert reply["type"] == "connection_ack"
    # operations on the connection run with the caller's grants
    answer = await _query(ws_url, reader, "{ items { id scope } }")
    assert answer["payload"] == {"data": {"items": [{"id": made["tenant:a/x"],
                                                     "scope": "tenant:a/x"}]}}  # fmt: skip


def test_an_unreadable_key_file_stops_start_up(tmp_path: Path, graph_engine: Engine) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "keys.json").write_text("[]")
    argv = [*MEMEXD, "serve", "--host", "0.0.0.0", "--port", str(free_port()),
            "--data-dir", str(data)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, timeout=60, text=True,
                          env=environment(graph_engine))  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "MEMEXD_KEYS_FILE" in lines[0]

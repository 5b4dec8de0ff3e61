"""Store selection by URI, and the health check that asks the engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memexd.core import Memex
from memexd.events.vocabulary import Origin
from memexd.graph.embedded import EmbeddedFalkor
from memexd.graph.falkordb import FalkorStore
from memexd.graph.migrations import discover, migrate
from memexd.graph.open import open_store
from memexd.memory.model import NewItem
from memexd.server.app import create_app
from memexd.settings import Settings
from tests import engines
from tests.support import Api


@pytest.fixture
def tcp_falkordb(tmp_path: Path) -> Iterator[int]:
    """A FalkorDB listening on TCP, as an external server would."""
    with engines.tcp_falkordb(tmp_path) as port:
        yield port


async def test_external_falkordb_by_uri(tcp_falkordb: int) -> None:
    settings = Settings(graph_uri=f"falkor://127.0.0.1:{tcp_falkordb}", graph_name="ext")
    store = await open_store(settings)
    try:
        assert isinstance(store, FalkorStore)
        memex = Memex(store, settings)
        every = [m.version for m in discover("falkordb")]
        assert [m.version for m in await migrate(memex.graph)] == every
        draft = NewItem(scope="s", kind="k", content={"x": 1}, author="a", source_kind="o",
                        authority=0.5)  # fmt: skip
        (item,), _ = await memex.items.create([draft], Origin())
        assert await memex.item_reads.get(item.id) == item
    finally:
        await store.close()


async def test_unknown_uri_scheme_is_refused() -> None:
    with pytest.raises(ValueError, match="unsupported scheme"):
        await open_store(Settings(graph_uri="mysql://localhost/db"))


async def test_healthz_asks_the_engine(api: Api, tmp_path: Path) -> None:
    ok = await api.client.get("/healthz")
    assert ok.status_code == 200
    assert ok.json() == {"status": "ok", "backend": api.store.backend}
    engine = EmbeddedFalkor(tmp_path)
    store = FalkorStore.connect(unix_socket=await engine.start(), graph="g")
    await engine.stop()
    app = create_app(Settings(), store=store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://memexd") as client:
        down = await client.get("/healthz")
    assert down.status_code == 503
    await store.close()

"""``memexd serve``: one process, or a supervisor and its workers, on one socket.

The listening socket is bound first (a busy port fails fast), then the engine
is opened and migrated once. With one worker this process serves; with more,
:mod:`memexd.server.workers` starts them and keeps the engine.
"""

from __future__ import annotations

import asyncio
import errno
import gc
import logging
import socket
from collections.abc import Callable, Coroutine
from typing import Any

import uvicorn

from memexd.errors import StartupError
from memexd.graph import Graph
from memexd.graph.open import open_migrated, open_worker_store
from memexd.recall import ensure_indexes
from memexd.server import ingest
from memexd.server.app import create_app
from memexd.server.protocol import guarded_protocol
from memexd.settings import Settings
from memexd.types import GraphStore

__all__ = ["bind", "configure_logging", "prepare", "run", "serve", "serve_worker"]

GC_THRESHOLDS = (20_000, 50, 100)


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before the engine starts (a busy port fails fast)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise StartupError(f"cannot listen on {host}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    listener = socket.socket(family, kind, proto)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(address)
    except OSError as exc:
        listener.close()
        if exc.errno == errno.EADDRINUSE:
            raise StartupError(f"port {port} on {host} is already in use") from None
        raise StartupError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    listener.set_inheritable(False)
    return listener


async def prepare(settings: Settings) -> GraphStore:
    """Open the engine (starting the embedded one), migrate it and set its
    text index as configured: once per server, before anyone serves."""
    store, _ = await open_migrated(settings)
    try:
        await ensure_indexes(Graph(store), settings.text_search)
    except BaseException:
        await store.close()
        raise
    return store


async def serve(settings: Settings, listener: socket.socket) -> None:
    """Serve in this process, on an engine it opens and closes."""
    store = await prepare(settings)
    try:
        await _serve(settings, listener, store)
    finally:
        await store.close()


async def serve_worker(
    settings: Settings, listener: socket.socket, name: str, ready: Callable[[], None]
) -> None:
    """Serve as worker ``name`` on the engine the supervisor prepared; call
    ``ready`` once listening."""
    store = open_worker_store(settings)
    try:
        await _serve(settings, listener, store, worker=name, ready=ready)
    finally:
        await store.close()


async def _serve(
    settings: Settings,
    listener: socket.socket,
    store: GraphStore,
    worker: str | None = None,
    ready: Callable[[], None] | None = None,
) -> None:
    app = create_app(settings, store=store, embeds=worker in (None, "1"))
    _tune_collector()
    # Each worker admits its share of the connection cap.
    share = -(-settings.max_connections // settings.workers)
    config = uvicorn.Config(
        app,
        log_level=settings.log_level,
        access_log=settings.access_log,
        lifespan="on",
        http=guarded_protocol(
            header_timeout=settings.header_timeout_s,
            body_timeout=settings.body_timeout_s,
            max_connections=share,
            streaming_paths=frozenset({ingest.PATH}),
        ),
        timeout_keep_alive=max(1, round(settings.keep_alive_s)),
        ws_max_size=settings.max_body_bytes,
        headers=[] if worker is None else [("memexd-worker", worker)],
    )
    server = uvicorn.Server(config)
    announce = None if ready is None else asyncio.create_task(_announce(server, ready))
    try:
        await server.serve(sockets=[listener])
    finally:
        if announce is not None:
            announce.cancel()


async def _announce(server: uvicorn.Server, ready: Callable[[], None]) -> None:
    """Call ``ready`` once the server listens."""
    while not server.started:
        await asyncio.sleep(0.01)
    ready()


def configure_logging(settings: Settings) -> None:
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(levelname)s %(name)s: %(message)s"
    )


def _tune_collector() -> None:
    # The schema, modules and query texts live as long as the process:
    # keep them out of the collector's full passes, which big requests
    # (a 10,000-item walk) trigger several times.
    gc.freeze()
    # Collect young objects every 20,000 allocations (default 700) and
    # consider full passes 50x / 100x less often: a big request (a
    # 10,000-item walk) allocates hundreds of thousands of objects that
    # live until it answers, and each full pass walks every long-lived
    # object (cached documents among them): at the defaults they doubled
    # such a walk's time (bench/scale.py). Cycles are rare here.
    gc.set_threshold(*GC_THRESHOLDS)


def run(main: Coroutine[Any, Any, None]) -> None:
    """Run ``main`` on uvloop where installed, as uvicorn.run would pick
    (about 15% of a request)."""
    from uvicorn.loops.auto import auto_loop_factory

    with asyncio.Runner(loop_factory=auto_loop_factory()) as runner:
        runner.run(main)

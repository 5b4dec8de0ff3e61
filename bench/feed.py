"""Live feed: events per second delivered to 1, 10 and 100 subscribers while
a writer streams ``createItems``, and the delay from a write's acknowledgment
to each subscriber receiving its events.

Run: ``.venv/bin/python bench/feed.py [--events N] [--batch B] [--subscribers 1,10,100]
[--payload] [--quick]`` and, for the wake-up across processes,
``.venv/bin/python bench/feed.py --paced [--interval-ms 20] [--workers 2]``

For each subscriber count: a fresh ``memexd serve``; that many WebSocket
connections (graphql-transport-ws), each subscribed to ``events`` after the
event of one seed item (so none can miss the start); then one writer sends
``createItems`` batches back to back over a keep-alive connection. The
writer's acknowledgment time is taken per batch, each subscriber's receipt
time per event; the delay is receipt minus acknowledgment (negative when an
event arrives before the writer has read its own answer). Throughput is the
events delivered to all subscribers over the time from the first write to the
last delivery. The reference is the writer alone: its events logged per
second with no subscriber, measured in the same run.

``--paced``: how soon a write reaches subscribers on *other* processes, not
throughput. ``memexd serve --workers N``; subscribers are opened until each
worker holds the same number (the ``memexd-worker`` header says which); one
``createItem`` every ``--interval-ms`` over a keep-alive connection (the
answer's header says which worker took it); the delay of each event at each
subscriber is reported apart for subscribers on the writing worker and on the
others.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from _common import Latencies, MemexdServer, item_inputs, memexd_server
from websockets.asyncio.client import connect

CREATE = """
mutation CreateItems($inputs: [MemoryItemInput!]!) {
  createItems(inputs: $inputs) { events { id } }
}
"""
SUBSCRIBE = "subscription($after: ID) { events(after: $after) { id type } }"
WITH_PAYLOAD = "subscription($after: ID) { events(after: $after) { id type payload } }"
PROTOCOL = "graphql-transport-ws"


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=5_000, help="items (events) written")
    parser.add_argument("--batch", type=int, default=50, help="items per createItems")
    parser.add_argument("--subscribers", default="1,10,100", help="comma-separated counts")
    parser.add_argument("--payload", action="store_true", help="subscribers select payloads")
    parser.add_argument("--seed", type=int, default=7, help="random seed")
    parser.add_argument("--quick", action="store_true", help="smoke run: 500 events, 1 and 10")
    parser.add_argument("--paced", action="store_true", help="wake-up across worker processes")
    parser.add_argument("--interval-ms", type=float, default=20.0,
                        help="--paced: ms between writes")  # fmt: skip
    parser.add_argument("--workers", type=int, default=2, help="--paced: memexd serve --workers")
    parser.add_argument("--per-worker", type=int, default=3, help="--paced: subscribers per worker")
    args = parser.parse_args()
    if args.quick:
        args.events, args.subscribers = 500, "1,10"
    if args.paced and args.events == 5_000:
        args.events = 1_000
    args.counts = [int(n) for n in args.subscribers.split(",")]
    return args


@dataclass
class Run:
    """What one subscriber count measured."""

    subscribers: int
    acked: dict[str, float] = field(default_factory=dict)  # event id -> ack time
    received: list[dict[str, float]] = field(default_factory=list)  # per subscriber
    started: float = 0.0
    finished: float = 0.0

    @property
    def delivered(self) -> int:
        return sum(len(r) for r in self.received)

    @property
    def rate(self) -> float:
        return self.delivered / (self.finished - self.started)

    def delays(self) -> Latencies:
        ms = [(at - self.acked[e]) * 1000 for got in self.received for e, at in got.items()]
        return Latencies(f"{self.subscribers} subscribers", ms)


async def _subscriber(url: str, query: str, after: str, count: int, got: dict[str, float],
                      ready: asyncio.Event) -> None:  # fmt: skip
    async with connect(url, subprotocols=[PROTOCOL], max_size=None) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init"}))
        await ws.recv()
        payload = {"query": query, "variables": {"after": after}}
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        ready.set()
        while len(got) < count:
            message = json.loads(await ws.recv())
            if message["type"] == "ping":
                await ws.send('{"type": "pong"}')
            elif message["type"] == "next":
                got[message["payload"]["data"]["events"]["id"]] = time.perf_counter()
            else:
                raise RuntimeError(f"subscriber got {message}")


async def _write(http: httpx.AsyncClient, rows: list[dict[str, Any]], batch: int,
                 acked: dict[str, float]) -> None:  # fmt: skip
    for i in range(0, len(rows), batch):
        body = {"query": CREATE, "variables": {"inputs": rows[i : i + batch]}}
        answer = (await http.post("/graphql", json=body)).json()
        if answer.get("errors"):
            raise RuntimeError(f"createItems failed: {answer['errors']}")
        now = time.perf_counter()
        for event in answer["data"]["createItems"]["events"]:
            acked[event["id"]] = now


async def _seed(http: httpx.AsyncClient, rng: random.Random) -> str:
    answer = (await http.post("/graphql", json={"query": CREATE,
              "variables": {"inputs": item_inputs(1, rng)}})).json()  # fmt: skip
    first: str = answer["data"]["createItems"]["events"][0]["id"]
    return first


async def _measure(server: MemexdServer, count: int, args: argparse.Namespace) -> Run:
    rng = random.Random(args.seed)
    rows = item_inputs(args.events, rng)
    run = Run(count, received=[{} for _ in range(count)])
    ws_url = server.base_url.replace("http://", "ws://") + "/graphql"
    query = WITH_PAYLOAD if args.payload else SUBSCRIBE
    async with httpx.AsyncClient(base_url=server.base_url, timeout=120) as http:
        after = await _seed(http, rng)
        readies = [asyncio.Event() for _ in range(count)]
        tasks = [
            asyncio.create_task(_subscriber(ws_url, query, after, args.events, got, ready))
            for got, ready in zip(run.received, readies, strict=True)
        ]
        await asyncio.gather(*(r.wait() for r in readies))
        await asyncio.sleep(0.5)  # every subscription has read its cursor
        run.started = time.perf_counter()
        await _write(http, rows, args.batch, run.acked)
        await asyncio.gather(*tasks)
        run.finished = max(max(got.values()) for got in run.received)
    return run


async def _writer_alone(server: MemexdServer, args: argparse.Namespace) -> float:
    rows = item_inputs(args.events, random.Random(args.seed + 1))
    async with httpx.AsyncClient(base_url=server.base_url, timeout=120) as http:
        started = time.perf_counter()
        await _write(http, rows, args.batch, {})
        return args.events / (time.perf_counter() - started)


def _workload(args: argparse.Namespace) -> str:
    selection = "id type payload" if args.payload else "id type"
    return (
        f"feed: {args.events:,} items written by one writer in createItems batches of "
        f"{args.batch}, back to back; subscribers {args.subscribers} (one WebSocket each, "
        f"subscription events(after: <seed event>) {{ {selection} }}); a fresh memexd serve "
        "(embedded FalkorDB) per count; subscribers, writer and server share this machine"
    )


async def _pace_subscriber(url: str, after: str, got: dict[str, float], stop: asyncio.Event,
                           opened: asyncio.Queue[tuple[str, Any]]) -> None:  # fmt: skip
    """One subscriber: tells which worker holds it, then records arrivals."""
    async with connect(url, subprotocols=[PROTOCOL], max_size=None) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init"}))
        await ws.recv()
        payload = {"query": SUBSCRIBE, "variables": {"after": after}}
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        await opened.put((ws.response.headers["memexd-worker"], got))
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                message = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
                if message["type"] == "ping":
                    await ws.send('{"type": "pong"}')
                elif message["type"] == "next":
                    got[message["payload"]["data"]["events"]["id"]] = time.perf_counter()


async def _subscribers_per_worker(
    url: str, after: str, args: argparse.Namespace, stop: asyncio.Event
) -> tuple[list[asyncio.Task[None]], dict[str, list[dict[str, float]]]]:
    """Open subscribers until every worker holds ``--per-worker`` of them
    (one more on a worker already full is closed again)."""
    opened: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
    kept: dict[str, list[dict[str, float]]] = {}
    tasks: list[asyncio.Task[None]] = []
    while len(kept) < args.workers or min(len(v) for v in kept.values()) < args.per_worker:
        task = asyncio.create_task(_pace_subscriber(url, after, {}, stop, opened))
        worker, got = await asyncio.wait_for(opened.get(), 30)
        if len(kept.setdefault(worker, [])) >= args.per_worker:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            continue
        kept[worker].append(got)
        tasks.append(task)
    return tasks, kept


async def _paced(server: MemexdServer, args: argparse.Namespace) -> tuple[Latencies, Latencies]:
    """Delays at subscribers on the writing worker, and on the others."""
    rows = item_inputs(args.events, random.Random(args.seed))
    ws_url = server.base_url.replace("http://", "ws://") + "/graphql"
    stop = asyncio.Event()
    writer_of: dict[str, str] = {}
    acked: dict[str, float] = {}
    async with httpx.AsyncClient(base_url=server.base_url, timeout=60) as http:
        after = await _seed(http, random.Random(args.seed + 1))
        tasks, kept = await _subscribers_per_worker(ws_url, after, args, stop)
        await asyncio.sleep(0.5)
        for row in rows:
            started = time.perf_counter()
            body = {"query": CREATE, "variables": {"inputs": [row]}}
            answer = await http.post("/graphql", json=body)
            now = time.perf_counter()
            (event,) = answer.json()["data"]["createItems"]["events"]
            acked[event["id"]], writer_of[event["id"]] = now, answer.headers["memexd-worker"]
            await asyncio.sleep(max(0.0, args.interval_ms / 1000 - (now - started)))
        await asyncio.sleep(1.0)
        stop.set()
        await asyncio.gather(*tasks)
    same: list[float] = []
    other: list[float] = []
    for worker, subscribers in kept.items():
        for got in subscribers:
            for event, at in acked.items():
                if event not in got:
                    raise RuntimeError(f"event {event} never reached a subscriber on {worker}")
                (same if writer_of[event] == worker else other).append((got[event] - at) * 1000)
    return Latencies("same worker", same), Latencies("other workers", other)


def _paced_main(args: argparse.Namespace) -> None:
    print(
        f"feed wake-up across processes: memexd serve --workers {args.workers} (embedded "
        f"FalkorDB); {args.per_worker} subscribers per worker; {args.events:,} createItem "
        f"calls, one every {args.interval_ms:g} ms, over one keep-alive connection",
        flush=True,
    )
    with memexd_server(MEMEXD_LOG_LEVEL="warning", MEMEXD_WORKERS=str(args.workers)) as server:
        for delays in asyncio.run(_paced(server, args)):
            print(
                f"  subscribers on {delays.label:<13}: {len(delays.ms):6,} deliveries; ack -> "
                f"delivery p50 {delays.p50:6.1f} ms  p99 {delays.pct(99):6.1f} ms  "
                f"max {max(delays.ms):6.1f} ms",
                flush=True,
            )


def main() -> None:
    args = _args()
    if args.paced:
        _paced_main(args)
        return
    print(_workload(args), flush=True)
    with memexd_server(MEMEXD_LOG_LEVEL="warning") as server:
        alone = asyncio.run(_writer_alone(server, args))
    print(f"  reference: writer alone logs {alone:,.0f} events/s", flush=True)
    for count in args.counts:
        with memexd_server(MEMEXD_LOG_LEVEL="warning") as server:
            run = asyncio.run(_measure(server, count, args))
        delays = run.delays()
        per = run.rate / count
        print(
            f"  {count:>3} subscribers: {run.rate:9,.0f} events/s delivered in all "
            f"({per:8,.0f} per subscriber, {per / alone:5.2f}x the writer alone); "
            f"ack -> delivery p50 {delays.p50:8.1f} ms  p99 {delays.pct(99):8.1f} ms",
            flush=True,
        )


if __name__ == "__main__":
    main()

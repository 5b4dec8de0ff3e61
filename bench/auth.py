"""Access control overhead: the same reads with authentication off and on.

Run: ``.venv/bin/python bench/auth.py [--items N] [--samples S] [--quick]``

Two ``memexd serve`` processes hold identical data on separate data dirs.
*Off*: no key file, so a loopback caller is anonymous (its reads still carry
the grant predicate, over the single prefix ``""``). *On*: a key file of 20
keys, and every request presents one whose grants are ``read:bench/`` and
``read:other/``, so each request looks the key up and checks it (a ``stat``
of the key file, SHA-256, a constant-time compare) and each query tests two
prefixes. Once a key exists anonymous callers are refused, hence two servers
rather than one. Every request goes to both servers, the order flipping each
round, so drift on a noisy machine hits both alike. The HTTP side is the
standard library's keep-alive ``http.client`` (httpx adds noise); the time
is request to last response byte, JSON decoding and checks left out.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from _common import (
    Latencies,
    MemexdServer,
    item_inputs,
    json_body,
    keep_alive,
    load_items,
    memexd_server,
)

from memexd.access.keys import KeyStore

ITEM = """
query Item($id: ID!) {
  item(id: $id) { id scope kind content authority createdAt }
}
"""
TOP = """
query Top($prefix: String!, $min: Float!) {
  items(
    filter: {scopePrefix: $prefix, range: {authority: {min: $min}}}
    sort: [{field: AUTHORITY, order: DESC}]
    limit: 10
  ) { id authority }
}
"""
TOP_VARIABLES = {"prefix": "bench/", "min": 0.5}
READ_GRANTS = ("read:bench/", "read:other/")
WRITE_GRANTS = ("write:bench/", "write:other/")
KEYS = 20
BENCH_SHARE = 0.8
TARGET = 1.10
LOAD_BATCH = 1_000

Check = Callable[[dict[str, Any], bytes], None]


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One keep-alive connection to a server, with the caller's headers."""

    connection: http.client.HTTPConnection
    headers: dict[str, str]

    def post(self, body: bytes) -> tuple[float, bytes]:
        """Time in ms from request to the last response byte, and the body."""
        start = time.perf_counter()
        self.connection.request("POST", "/graphql", body=body, headers=self.headers)
        answer = self.connection.getresponse().read()
        return (time.perf_counter() - start) * 1000, answer


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000, help="items on each server")
    parser.add_argument("--samples", type=int, default=3_000, help="timed point reads per side")
    parser.add_argument(
        "--top-samples", type=int, default=500, help="timed filtered top-10 reads per side"
    )
    parser.add_argument("--warmup", type=int, default=200, help="untimed reads per side first")
    parser.add_argument("--seed", type=int, default=7, help="random seed")
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: 2,000 items, 300 + 100 reads"
    )
    args = parser.parse_args()
    if args.quick:
        args.items, args.samples, args.top_samples, args.warmup = 2_000, 300, 100, 30
    return args


def _inputs(count: int, rng: random.Random) -> list[dict[str, Any]]:
    """Item inputs with scopes under ``bench/`` (most) or ``other/``."""
    rows = item_inputs(count, rng)
    for row in rows:
        root = "bench/" if rng.random() < BENCH_SHARE else "other/"
        row["scope"] = root + row["scope"]
    return rows


def _keys(path: Path) -> tuple[str, str]:
    """A key file of ``KEYS`` keys; returns the loader's and the reader's keys."""
    store = KeyStore(path)
    for i in range(KEYS - 2):
        store.create(f"agent-{i:02d}", [f"read:team{i}/", f"write:team{i}/scratch/"])
    _, loader = store.create("loader", WRITE_GRANTS)
    _, reader = store.create("reader", READ_GRANTS)
    return loader, reader


def _load(server: MemexdServer, inputs: list[dict[str, Any]], key: str | None) -> None:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=120) as client:
        load_items(client, inputs, LOAD_BATCH)


def _refuses_anonymous(server: MemexdServer) -> str:
    """How the authenticated server answers a request without credentials."""
    response = httpx.post(
        f"{server.base_url}/graphql", json={"query": ITEM, "variables": {"id": "x"}}, timeout=30
    )
    errors = response.json().get("errors") or []
    codes = [(e.get("extensions") or {}).get("code") for e in errors]
    if not errors or response.json().get("data"):
        raise RuntimeError(f"anonymous request was not refused: {response.text[:300]}")
    return f"{response.status_code} {', '.join(str(c) for c in codes)}"


@contextmanager
def _endpoint(server: MemexdServer, key: str | None) -> Iterator[Endpoint]:
    connection = keep_alive(server)
    headers = {"content-type": "application/json"}
    if key:
        headers["authorization"] = f"Bearer {key}"
    try:
        yield Endpoint(connection, headers)
    finally:
        connection.close()


def _data(raw: bytes, body: bytes) -> dict[str, Any]:
    answer = json.loads(raw)
    if answer.get("errors") or not answer.get("data"):
        raise RuntimeError(f"{body[:80]!r} failed: {answer.get('errors')}")
    data: dict[str, Any] = answer["data"]
    return data


def _check_item(data: dict[str, Any], body: bytes) -> None:
    item_id = json.loads(body)["variables"]["id"]
    item = data["item"]
    if item is None or item["id"] != item_id:
        raise RuntimeError(f"item({item_id}) came back as {item!r}")


def _check_top(data: dict[str, Any], body: bytes) -> None:
    rows = data["items"]
    scores = [row["authority"] for row in rows]
    if len(rows) != 10 or min(scores) < 0.5 or scores != sorted(scores, reverse=True):
        raise RuntimeError(f"top-10 came back as {rows!r}")


def _measure(
    endpoints: dict[str, Endpoint], bodies: list[bytes], check: Check
) -> dict[str, list[float]]:
    """Per-side latencies in ms; each body goes to every side, order flipping."""
    samples: dict[str, list[float]] = {name: [] for name in endpoints}
    names = list(endpoints)
    for i, body in enumerate(bodies):
        for name in names if i % 2 == 0 else names[::-1]:
            ms, raw = endpoints[name].post(body)
            check(_data(raw, body), body)
            samples[name].append(ms)
    return samples


def _same_answers(endpoints: dict[str, Endpoint], body: bytes) -> None:
    """Both servers hold the same data: the same query gives the same answer."""
    answers = [_data(endpoint.post(body)[1], body) for endpoint in endpoints.values()]
    if any(answer != answers[0] for answer in answers):
        raise RuntimeError(f"the servers disagree on {body[:80]!r}: {answers!r}")


def _report(title: str, samples: dict[str, list[float]]) -> None:
    off, on = (Latencies(name, ms) for name, ms in samples.items())
    print(title)
    for side in (off, on):
        print(f"  {side.label:<10} p50 {side.p50:7.3f} ms   p95 {side.pct(95):7.3f} ms"
              f"   mean {side.mean:7.3f} ms")  # fmt: skip
    ratio50, ratio95 = on.p50 / off.p50, on.pct(95) / off.pct(95)
    ratio_mean = on.mean / off.mean
    verdict = "met" if ratio50 <= TARGET else "MISSED"
    print(
        f"  ratio on/off: p50 {ratio50:.3f}x  p95 {ratio95:.3f}x  mean {ratio_mean:.3f}x"
        f"  (target p50 <= {TARGET:.2f}x: {verdict})",
        flush=True,
    )


def _workload(args: argparse.Namespace) -> str:
    return (
        f"auth overhead: {args.items:,} items ({BENCH_SHARE:.0%} scoped bench/…, the rest "
        "other/…) created via createItems on each of two servers with identical data;\n"
        "one client, sequential, keep-alive (http.client), every request sent to both "
        "servers, order flipping each round\n"
        "  auth off: no key file, anonymous on loopback (grant predicate over [''])\n"
        f"  auth on:  key file of {KEYS} keys; requests carry Bearer mxk_… with grants "
        f"{' '.join(READ_GRANTS)}"
    )


def main() -> None:
    args = _args()
    print(_workload(args), flush=True)
    rng = random.Random(args.seed)
    inputs = _inputs(args.items, rng)
    ids = [row["id"] for row in inputs]
    with ExitStack() as stack:
        key_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mxa-", dir="/tmp")))
        loader, reader = _keys(key_dir / "keys.json")
        off = stack.enter_context(memexd_server(MEMEXD_KEYS_FILE=str(key_dir / "none.json")))
        on = stack.enter_context(memexd_server(MEMEXD_KEYS_FILE=str(key_dir / "keys.json")))
        _load(off, inputs, None)
        _load(on, inputs, loader)
        print(f"  anonymous request to the auth-on server: refused ({_refuses_anonymous(on)})")
        endpoints = {
            "auth off": stack.enter_context(_endpoint(off, None)),
            "auth on": stack.enter_context(_endpoint(on, reader)),
        }
        top = json_body(TOP, TOP_VARIABLES)
        _same_answers(endpoints, top)
        _same_answers(endpoints, json_body(ITEM, {"id": ids[0]}))

        def item_bodies(count: int) -> list[bytes]:
            return [json_body(ITEM, {"id": i}) for i in rng.choices(ids, k=count)]

        _measure(endpoints, item_bodies(args.warmup), _check_item)
        items = _measure(endpoints, item_bodies(args.samples), _check_item)
        _report(
            f"point read, {args.samples:,} timed requests per side of random ids "
            f"({args.warmup:,} warm-up):\n"
            "  item(id) { id scope kind content authority createdAt }",
            items,
        )
        _measure(endpoints, [top] * max(1, args.warmup // 5), _check_top)
        tops = _measure(endpoints, [top] * args.top_samples, _check_top)
        _report(
            f"filtered sorted top-10, {args.top_samples:,} timed requests per side "
            f"({max(1, args.warmup // 5):,} warm-up):\n"
            '  items(filter: {scopePrefix: "bench/", range: {authority: {min: 0.5}}}, '
            "sort: [{field: AUTHORITY, order: DESC}], limit: 10) { id authority }",
            tops,
        )


if __name__ == "__main__":
    main()

"""cascadeRetract while another client keeps adding children under the doomed items:
no live item may end with a retracted parent it was created before."""

from __future__ import annotations

import asyncio
import random

from tests.support import Api

CASCADE = 'mutation($id: ID!) { cascadeRetract(id: $id, author: "u") { retracted } }'
CREATE = """mutation($p: [ID!]) { createItem(input: {scope: "race", kind: "k", content: {},
  author: "w", sourceKind: "o", authority: 0.5, parents: $p}) { item { id } } }"""
LOG = """query($after: ID) { events(after: $after, limit: 10000) { id type payload } }"""
ITEMS = '{ items(filter: {scope: "race"}, limit: 10000) { id parents } }'


async def tree(api: Api, rng: random.Random, size: int) -> list[str]:
    ids = [(await api.ok(CREATE, p=[]))["createItem"]["item"]["id"]]
    for _ in range(size - 1):
        parents = rng.sample(ids, k=min(len(ids), rng.choice([1, 1, 2])))
        ids.append((await api.ok(CREATE, p=parents))["createItem"]["item"]["id"])
    return ids


async def test_cascade_never_leaves_a_live_dependent_behind(api: Api) -> None:
    rng = random.Random(11)
    taken_from_writer = 0
    for _ in range(25):
        ids = await tree(api, rng, 25)
        done = asyncio.Event()

        async def writer(doomed: list[str] = ids, finished: asyncio.Event = done) -> int:
            added = 0
            while not finished.is_set() or added < 3:
                parent = rng.choice(doomed)
                child = (await api.ok(CREATE, p=[parent]))["createItem"]["item"]["id"]
                doomed.append(child)  # later children may hang under earlier newcomers
                added += 1
            return added

        async def cascade(root: str = ids[0], finished: asyncio.Event = done) -> list[str]:
            try:
                return list((await api.ok(CASCADE, id=root))["cascadeRetract"]["retracted"])
            finally:
                finished.set()

        retracted, added = await asyncio.gather(cascade(), writer())
        assert added >= 3
        assert set(ids[:25]) <= set(retracted)
        taken_from_writer += len(retracted) - 25
    assert taken_from_writer > 0, "the cascade never met a concurrent child"
    await _check_log(api)


async def _check_log(api: Api) -> None:
    position: dict[tuple[str, str], int] = {}
    for i, event in enumerate((await api.ok(LOG))["events"]):
        payload = event["payload"]
        subject = payload["item"]["id"] if "item" in payload else payload.get("item_id")
        position[(event["type"], subject)] = i
    live = (await api.ok(ITEMS))["items"]
    checked = 0
    for item in live:
        created = position[("memory.created", item["id"])]
        for parent in item["parents"]:
            gone = position.get(("memory.retracted", parent))
            if gone is not None:
                checked += 1
                assert created > gone, f"{item['id']} outlived its retracted parent {parent}"
    assert checked > 0, "the writer never raced the cascade"

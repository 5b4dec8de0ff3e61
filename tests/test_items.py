"""Memory items through GraphQL: create, read, update, retract, and their errors."""

from __future__ import annotations

from tests.support import ITEM_FIELDS, Api, created_ms

CREATE_ITEMS = f"""
mutation($inputs: [MemoryItemInput!]!) {{
  createItems(inputs: $inputs) {{ items {{ {ITEM_FIELDS} }} events {{ type payload }} }}
}}
"""
GET = f"""query($id: ID!, $all: Boolean) {{
  item(id: $id, includeRetracted: $all) {{ {ITEM_FIELDS} }}
}}"""
UPDATE = f"""
mutation($id: ID!, $patch: MemoryItemPatch!, $reason: String, $basis: JSON) {{
  updateItem(id: $id, patch: $patch, author: "user:editor", reason: $reason, basis: $basis) {{
    item {{ {ITEM_FIELDS} }} events {{ type payload author reason }}
  }}
}}
"""
RETRACT = """
mutation($id: ID!) {
  retractItem(id: $id, author: "user:x", reason: "wrong") { events { type payload } }
}
"""
ID7 = "01900000-0000-7000-8000-0000000000{:02x}"


def draft(**fields: object) -> dict[str, object]:
    return {"scope": "s", "kind": "observation", "content": {"v": 1}, "author": "user:a",
            "sourceKind": "observed", "authority": 0.5, **fields}  # fmt: skip


async def test_create_item_returns_item_and_event(api: Api) -> None:
    item = await api.create(meta={"agent_id": "agent:r"}, conviction=0.25, importance=1.0)
    assert item["retracted"] is False
    assert item["meta"] == {"agent_id": "agent:r"}
    assert (item["conviction"], item["importance"], item["authority"]) == (0.25, 1.0, 0.5)
    fetched = (await api.ok(GET, id=item["id"]))["item"]
    assert fetched == item
    events = (await api.ok("{ events { type payload } }"))["events"]
    assert events[0]["type"] == "memory.created"
    assert events[0]["payload"]["item"]["id"] == item["id"]
    assert events[0]["payload"]["item"]["source_kind"] == "observed"


async def test_client_id_and_creation_time_come_from_uuid7(api: Api) -> None:
    item = await api.create(id=ID7.format(1))
    assert item["id"] == ID7.format(1)
    assert item["createdAt"].startswith("2024-06-")  # 0x019000000000 ms


async def test_create_items_links_parents_in_any_order(api: Api) -> None:
    a, b = ID7.format(1), ID7.format(2)
    data = await api.ok(CREATE_ITEMS, inputs=[draft(id=b, parents=[a]), draft(id=a)])
    assert [i["id"] for i in data["createItems"]["items"]] == [b, a]
    assert [e["type"] for e in data["createItems"]["events"]] == ["memory.created"] * 2
    tree = await api.ok(
        "query($id: ID!) { item(id: $id) { parentItems { id children { id } } } }", id=b
    )
    assert tree["item"]["parentItems"] == [{"id": a, "children": [{"id": b}]}]


async def test_parent_created_later_is_linked_then(api: Api) -> None:
    late = ID7.format(9)
    child = await api.create(parents=[late, late])
    assert (await api.ok("query($id: ID!) { parents(id: $id) { id } }", id=child["id"]))[
        "parents"
    ] == []
    await api.create(id=late)
    got = await api.ok("query($id: ID!) { children(id: $id) { id } }", id=late)
    assert got["children"] == [{"id": child["id"]}]
    parents = await api.ok("query($id: ID!) { parents(id: $id) { id } }", id=child["id"])
    assert parents["parents"] == [{"id": late}]


async def test_update_merges_content_and_meta_and_ignores_nulls(api: Api) -> None:
    item = await api.create(content={"a": 1, "b": 2}, meta={"x": 1, "y": {"z": 1}})
    data = await api.ok(
        UPDATE,
        id=item["id"],
        patch={"content": {"b": 3, "c": 4}, "meta": {"y": 2}, "authority": 0.9,
               "conviction": None, "kind": "assertion"},
        reason="fix", basis={"why": "checked"},
    )  # fmt: skip
    updated = data["updateItem"]["item"]
    assert updated["content"] == {"a": 1, "b": 3, "c": 4}
    assert updated["meta"] == {"x": 1, "y": 2}
    assert (updated["authority"], updated["kind"], updated["conviction"]) == (
        0.9,
        "assertion",
        None,
    )
    assert (updated["id"], updated["createdAt"]) == (item["id"], item["createdAt"])
    assert (await api.ok(GET, id=item["id"]))["item"] == updated
    event = data["updateItem"]["events"][0]
    assert event["type"] == "memory.updated"
    # MemEX's lifecycle event: the whole item after the update; who and why
    # are kept beside it
    assert event["payload"] == {
        "namespace": "memory", "type": "memory.updated", "cause_type": "memory.update",
        "item": {"id": item["id"], "scope": "test", "kind": "assertion",
                 "content": {"a": 1, "b": 3, "c": 4}, "author": "user:test",
                 "source_kind": "observed", "authority": 0.9,
                 "created_at": created_ms(item), "meta": {"x": 1, "y": 2}},
    }  # fmt: skip
    assert (event["author"], event["reason"]) == ("user:editor", "fix")
    # the stale flattened meta path y.z is gone: the filter no longer matches
    found = await api.ok(
        "query($f: MemoryFilter) { items(filter: $f) { id } }", f={"meta": {"y.z": 1}}
    )
    assert found["items"] == []


async def test_update_parents_relinks(api: Api) -> None:
    p1, p2 = await api.create(), await api.create()
    child = await api.create(parents=[p1["id"]])
    await api.ok(UPDATE, id=child["id"], patch={"parents": [p2["id"], ID7.format(7)]})
    q = "query($id: ID!) { children(id: $id) { id } }"
    assert (await api.ok(q, id=p1["id"]))["children"] == []
    assert (await api.ok(q, id=p2["id"]))["children"] == [{"id": child["id"]}]
    await api.create(id=ID7.format(7))
    assert (await api.ok(q, id=ID7.format(7)))["children"] == [{"id": child["id"]}]


async def test_retract_hides_item_but_keeps_tombstone(api: Api) -> None:
    item = await api.create()
    events = (await api.ok(RETRACT, id=item["id"]))["retractItem"]["events"]
    payload = {
        "namespace": "memory", "type": "memory.retracted", "cause_type": "memory.retract",
        "item": {"id": item["id"], "scope": "test", "kind": "observation", "content": {"n": 1},
                 "author": "user:test", "source_kind": "observed", "authority": 0.5,
                 "created_at": created_ms(item)},
    }  # fmt: skip
    assert events == [{"type": "memory.retracted", "payload": payload}]
    assert (await api.ok(GET, id=item["id"]))["item"] is None
    assert (await api.ok("{ items { id } }"))["items"] == []
    tomb = (await api.ok(GET, id=item["id"], all=True))["item"]
    assert tomb["retracted"] is True
    assert (await api.ok("{ items(includeRetracted: true) { id } }"))["items"] == [
        {"id": item["id"]}
    ]


async def test_duplicate_ids_are_rejected_without_change(api: Api) -> None:
    await api.create(id=ID7.format(1))
    before = await api.snapshot()
    assert await api.codes(
        CREATE_ITEMS, inputs=[draft(id=ID7.format(2)), draft(id=ID7.format(1))]
    ) == ["DUPLICATE_MEMORY"]
    assert await api.codes(
        CREATE_ITEMS, inputs=[draft(id=ID7.format(3)), draft(id=ID7.format(3))]
    ) == ["DUPLICATE_MEMORY"]
    assert await api.snapshot() == before


async def test_retracted_id_stays_taken(api: Api) -> None:
    item = await api.create(id=ID7.format(4))
    await api.ok(RETRACT, id=item["id"])
    before = await api.snapshot()
    assert await api.codes(CREATE_ITEMS, inputs=[draft(id=ID7.format(4))]) == ["DUPLICATE_MEMORY"]
    assert await api.snapshot() == before


async def test_missing_items_cannot_be_updated_or_retracted(api: Api) -> None:
    gone = await api.create()
    await api.ok(RETRACT, id=gone["id"])
    before = await api.snapshot()
    for target in (ID7.format(5), gone["id"]):
        assert await api.codes(UPDATE, id=target, patch={"authority": 0.1}) == ["MEMORY_NOT_FOUND"]
        assert await api.codes(RETRACT, id=target) == ["MEMORY_NOT_FOUND"]
    assert await api.snapshot() == before


async def test_empty_batch_is_a_no_op(api: Api) -> None:
    before = await api.snapshot()
    data = await api.ok(CREATE_ITEMS, inputs=[])
    assert data["createItems"] == {"items": [], "events": []}
    assert await api.snapshot() == before


async def test_parents_and_children_queries(api: Api) -> None:
    a, b = await api.create(), await api.create()
    c = await api.create(parents=[b["id"], a["id"], ID7.format(3)])
    got = await api.ok("query($id: ID!) { parents(id: $id) { id } }", id=c["id"])
    assert got["parents"] == [{"id": b["id"]}, {"id": a["id"]}]
    got = await api.ok("query($id: ID!) { children(id: $id) { id parents } }", id=a["id"])
    assert got["children"] == [{"id": c["id"], "parents": [b["id"], a["id"], ID7.format(3)]}]

"""Production mode: introspection for admins only, no suggestions, no GraphiQL,
no queries over GET; CORS from a configured list."""

from __future__ import annotations

from tests.conftest import ApiFactory

SCHEMA = "{ __schema { queryType { name } } }"
TYPE = '{ __type(name: "MemoryItem") { name } }'


async def test_introspection_needs_an_admin_grant(make_api: ApiFactory) -> None:
    api = await make_api(env="production")
    reader = api.with_grants("read:", "write:tenant:a/")
    admin = api.with_grants("admin:tenant:a/")
    for query in (SCHEMA, TYPE):
        assert await reader.codes(query) == ["FORBIDDEN"]
    assert (await admin.ok(SCHEMA))["__schema"]["queryType"]["name"] == "Query"
    assert (await reader.ok("{ __typename }"))["__typename"] == "Query"
    development = await make_api()
    assert (await development.with_grants("read:").ok(TYPE))["__type"]["name"] == "MemoryItem"


async def test_the_subgraph_sdl_needs_an_admin_grant(make_api: ApiFactory) -> None:
    """``_service { sdl }`` tells the whole schema, as introspection does."""
    api = await make_api(env="production", federation=True)
    reader = api.with_grants("read:")
    admin = api.with_grants("admin:tenant:a/")
    assert await reader.codes("{ _service { sdl } }") == ["FORBIDDEN"]
    assert "type MemoryItem @key" in (await admin.ok("{ _service { sdl } }"))["_service"]["sdl"]
    found = await reader.ok(
        '{ _entities(representations: [{__typename: "Task", id: "x"}]) { __typename } }'
    )
    assert found == {"_entities": [None]}  # references stay open to readers


async def test_no_field_suggestions(make_api: ApiFactory) -> None:
    query = "{ itemz(id: 1) { id } }"
    development = await make_api()
    assert "Did you mean" in (await development.run(query))["errors"][0]["message"]
    production = await make_api(env="production")
    body = await production.run(query)
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert "Did you mean" not in body["errors"][0]["message"]
    wrong_argument = "{ items(limt: 1) { id } }"
    assert "Did you mean" not in (await production.run(wrong_argument))["errors"][0]["message"]


async def test_no_graphiql_and_no_queries_over_get(make_api: ApiFactory) -> None:
    development = await make_api()
    page = await development.client.get("/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200
    assert "graphiql" in page.text.lower()
    over_get = await development.client.get("/graphql", params={"query": "{ __typename }"})
    assert over_get.json()["data"] == {"__typename": "Query"}

    production = await make_api(env="production")
    page = await production.client.get("/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 404
    assert "graphiql" not in page.text.lower()
    over_get = await production.client.get("/graphql", params={"query": "{ __typename }"})
    assert over_get.status_code in (400, 405)
    assert over_get.json().get("data") is None
    posted = await production.ok("{ __typename }")
    assert posted == {"__typename": "Query"}


async def test_cors_only_for_configured_origins(make_api: ApiFactory) -> None:
    api = await make_api(env="production", cors_origins=["https://ui.example"])
    preflight = {"Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization,content-type"}  # fmt: skip
    allowed = await api.client.options(
        "/graphql", headers={"Origin": "https://ui.example", **preflight}
    )
    assert allowed.headers["access-control-allow-origin"] == "https://ui.example"
    assert "authorization" in allowed.headers["access-control-allow-headers"].lower()
    refused = await api.client.options(
        "/graphql", headers={"Origin": "https://evil.example", **preflight}
    )
    assert "access-control-allow-origin" not in refused.headers
    none = await make_api()
    plain = await none.client.options(
        "/graphql", headers={"Origin": "https://ui.example", **preflight}
    )
    assert "access-control-allow-origin" not in plain.headers

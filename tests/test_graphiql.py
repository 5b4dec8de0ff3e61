"""The GraphiQL page loads only same-origin assets, served from the installed package."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from importlib.resources import files
from importlib.resources.abc import Traversable
from urllib.parse import urlsplit

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from memexd.server.graphiql import ASSET_PATH, asset_routes, page
from tests.pages import CDN_HOSTS, Refs, css_urls, listed_versions, same_origin
from tests.support import Api


def build_app() -> Starlette:
    async def graphql(request: Request) -> HTMLResponse:
        return HTMLResponse(page())

    return Starlette(routes=[Route("/graphql", graphql), *asset_routes()])


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=build_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://memexd") as client:
        yield client


def static_folder() -> Traversable:
    return files("memexd.server").joinpath("static", "graphiql")


def versions() -> dict[str, tuple[str, str, str]]:
    return listed_versions(static_folder())


async def test_page_loads_only_same_origin_assets(client: httpx.AsyncClient) -> None:
    response = await client.get("/graphql")
    assert response.status_code == 200
    html = response.text
    refs = Refs()
    refs.feed(html)
    refs.close()

    assert "<title>memexd GraphiQL</title>" in html
    assert refs.scripts, "no <script src>"
    assert refs.stylesheets, "no stylesheet <link>"
    foreign = [url for url in refs.urls if not same_origin(url)]
    assert not foreign, f"URLs on another host: {foreign}"
    assert all(urlsplit(url).path.startswith(f"{ASSET_PATH}/") for url in refs.urls)
    for host in CDN_HOSTS:
        assert host not in html

    for url in refs.urls:
        asset = await client.get(url)
        assert asset.status_code == 200, url
        assert asset.content, url
        kind = asset.headers["content-type"]
        if url in refs.scripts:
            assert "javascript" in kind, (url, kind)
        elif url in refs.stylesheets:
            assert kind.startswith("text/css"), (url, kind)
            css = asset.text
            for host in CDN_HOSTS:
                assert host not in css, (url, host)
            # fonts and icons are inlined as data: URIs, anything else stays here
            loads = [ref for ref in css_urls(css) if not ref.startswith("data:")]
            assert all(same_origin(ref) for ref in loads), (url, loads)


async def test_assets_have_cache_headers_and_stay_in_their_folder(
    client: httpx.AsyncClient,
) -> None:
    asset = await client.get(f"{ASSET_PATH}/graphiql.min.js")
    assert asset.status_code == 200
    assert "max-age" in asset.headers["cache-control"]
    assert asset.headers["x-content-type-options"] == "nosniff"
    assert (await client.get(f"{ASSET_PATH}/missing.js")).status_code == 404
    escape = await client.get(f"{ASSET_PATH}/..%2F..%2Fgraphiql.py")
    assert escape.status_code == 404


def test_fetcher_posts_to_the_given_endpoint() -> None:
    html = page("/api/graphql")
    assert "GraphiQL.createFetcher({ url: endpoint })" in html
    assert 'var endpoint = "/api/graphql";' in html
    hostile = page('/x"</script><script>alert(1)</script>')
    assert hostile.count("</script>") == page().count("</script>")


def test_every_vendored_file_is_listed_with_its_licence() -> None:
    folder = static_folder()
    present = {entry.name for entry in folder.iterdir() if entry.is_file()}
    bundles = {name for name in present if name.endswith((".js", ".css"))}
    listed = versions()

    assert bundles, "nothing vendored; run tools/vendor-graphiql/vendor.mjs"
    assert bundles == set(listed), "VERSIONS.txt and the folder disagree"
    assert "THIRD-PARTY-NOTICES.txt" in present
    for name, (package, licence, digest) in listed.items():
        package_name = package.rpartition("@")[0]
        slug = package_name.removeprefix("@").replace("/", "-")
        assert licence == f"LICENSE.{slug}.txt", (name, licence)
        assert licence in present, f"{name}: {licence} is missing"
        assert "licen" in folder.joinpath(licence).read_text().lower(), licence
        assert hashlib.sha256(folder.joinpath(name).read_bytes()).hexdigest() == digest, name


async def test_memexd_serves_graphiql_offline(api: Api) -> None:
    """The page memexd itself serves at /graphql references only its own assets."""
    page = await api.client.get("/graphql", headers={"accept": "text/html"})
    assert page.status_code == 200
    assert "memexd GraphiQL" in page.text
    refs = Refs()
    refs.feed(page.text)
    refs.close()
    assert refs.scripts
    assert refs.stylesheets
    for host in CDN_HOSTS:
        assert host not in page.text
    for ref in refs.urls:
        assert same_origin(ref), ref
        asset = await api.client.get(ref)
        assert asset.status_code == 200, ref
        assert asset.content, ref

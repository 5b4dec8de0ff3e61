"""The GraphiQL page loads only same-origin assets, served from the installed package."""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator
from html.parser import HTMLParser
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
from tests.support import Api

CDN_HOSTS = ("unpkg.com", "cdn.jsdelivr")
# url(...) and @import "..." in CSS; quotes optional for url().
CSS_URL = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)|@import\s+(['"])(.*?)\3""", re.IGNORECASE)


def css_urls(css: str) -> list[str]:
    return [match.group(2) or match.group(4) for match in CSS_URL.finditer(css)]


class Refs(HTMLParser):
    """Every URL the page makes the browser load, by kind."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self.stylesheets: list[str] = []
        self.other: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "style":
            self._in_style = True
        for name in ("src", "href", "srcset", "poster", "data"):
            url = found.get(name)
            if url is None:
                continue
            if tag == "script" and name == "src":
                self.scripts.append(url)
            elif tag == "link" and "stylesheet" in (found.get("rel") or "").lower().split():
                self.stylesheets.append(url)
            else:
                self.other.append(url)
        if style := found.get("style"):
            self.other.extend(css_urls(style))

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.other.extend(css_urls(data))

    @property
    def urls(self) -> list[str]:
        return [*self.scripts, *self.stylesheets, *self.other]


def same_origin(url: str) -> bool:
    """No scheme and no host; browsers read ``/\\host`` like ``//host``."""
    parts = urlsplit(url.strip())
    other_host = url.strip().replace("\\", "/").startswith("//")
    return not parts.scheme and not parts.netloc and not other_host


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
    """VERSIONS.txt: file -> (package@version, licence file, sha256)."""
    rows: dict[str, tuple[str, str, str]] = {}
    for line in static_folder().joinpath("VERSIONS.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, package, licence, digest = line.split()
            rows[name] = (package, licence, digest)
    return rows


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

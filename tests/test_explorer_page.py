"""The explorer page (/explore) loads only same-origin assets from the
installed package, under a content security policy, with its vendored
libraries listed with their licences."""

from __future__ import annotations

import hashlib
from importlib.resources import files
from urllib.parse import urlsplit

from memexd.server.explorer import ASSET_PATH, page
from tests.pages import CDN_HOSTS, Refs, listed_versions, same_origin
from tests.support import Api


async def test_memexd_serves_the_explorer_offline(api: Api) -> None:
    response = await api.client.get("/explore")
    assert response.status_code == 200
    assert "<title>memexd explorer</title>" in response.text
    policy = response.headers["content-security-policy"]
    assert "default-src 'none'" in policy
    assert "script-src 'self'" in policy
    refs = Refs()
    refs.feed(response.text)
    refs.close()
    assert len(refs.scripts) == 3
    assert refs.stylesheets
    for host in CDN_HOSTS:
        assert host not in response.text
    for url in refs.urls:
        assert same_origin(url), url
        assert urlsplit(url).path.startswith(f"{ASSET_PATH}/"), url
        asset = await api.client.get(url)
        assert asset.status_code == 200, url
        assert asset.content, url
        assert asset.headers["x-content-type-options"] == "nosniff"
    assert (await api.client.get(f"{ASSET_PATH}/../explorer.py")).status_code == 404
    assert (await api.client.post("/explore")).status_code == 405


def test_the_endpoint_is_escaped_into_the_page() -> None:
    hostile = page('/x"><script>alert(1)</script>')
    assert "<script>alert(1)" not in hostile
    assert 'data-endpoint="/graphql"' in page()


def test_every_vendored_library_is_listed_with_its_licence() -> None:
    folder = files("memexd.server").joinpath("static", "explorer", "vendor")
    present = {entry.name for entry in folder.iterdir() if entry.is_file()}
    listed = listed_versions(folder)
    assert {name for name in present if name.endswith(".js")} == set(listed)
    assert "THIRD-PARTY-NOTICES.txt" in present
    notices = folder.joinpath("THIRD-PARTY-NOTICES.txt").read_text()
    assert "@dagrejs/dagre@" in notices  # bundled inside cytoscape-dagre.min.js
    for name, (_, licence, digest) in listed.items():
        assert licence in present, (name, licence)
        assert "licen" in folder.joinpath(licence).read_text().lower(), licence
        assert hashlib.sha256(folder.joinpath(name).read_bytes()).hexdigest() == digest, name

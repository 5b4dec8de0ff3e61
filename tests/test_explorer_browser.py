"""The explorer in a real Chromium (Playwright), against ``memexd serve``.

The browser is the system's Chromium (Debian's ``chromium`` package;
``MEMEXD_CHROMIUM`` names another executable). ``.ci/run`` installs it and
sets ``MEMEXD_REQUIRE_BROWSER=1``: there a missing browser fails the suite. A
developer machine without one skips these tests, saying so. Screenshots go
to ``test-artifacts/``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
MEMEXD = str(Path(sys.executable).with_name("memexd"))
CREATE = """mutation($inputs: [MemoryItemInput!]!) {
  createItems(inputs: $inputs) { items { id } } }"""


def chromium() -> str:
    found = os.environ.get("MEMEXD_CHROMIUM") or shutil.which("chromium")
    found = found or shutil.which("chromium-browser")
    if found:
        return found
    message = "NO BROWSER: install Debian's chromium (apt-get install -y chromium) or set "
    message += "MEMEXD_CHROMIUM; the explorer's browser tests did not run"
    if os.environ.get("MEMEXD_REQUIRE_BROWSER"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``memexd serve`` on a free port and a fresh data directory."""
    data = tmp_path_factory.mktemp("explorer")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEXD_")}
    log = (data / "memexd.log").open("wb")
    process = subprocess.Popen(
        [MEMEXD, "serve", "--port", str(port), "--data-dir", str(data)],
        env=env, stdout=log, stderr=log, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"memexd did not start:\n{(data / 'memexd.log').read_text()[-2000:]}")
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def graphql(base: str, query: str, **variables: Any) -> dict[str, Any]:
    body = httpx.post(f"{base}/graphql", json={"query": query, "variables": variables}).json()
    assert not body.get("errors"), body
    data: dict[str, Any] = body["data"]
    return data


def item(n: int, **fields: Any) -> dict[str, Any]:
    return {"scope": "proj:explorer/a", "kind": "fact", "content": {"claim": f"claim {n}"},
            "author": "agent:seed", "sourceKind": "observed", "authority": 0.5 + n / 100,
            **fields}  # fmt: skip


@pytest.fixture(scope="module")
def seeded(server: str) -> dict[str, str]:
    (root,) = graphql(server, CREATE, inputs=[item(1)])["createItems"]["items"]
    made = graphql(server, CREATE, inputs=[item(2, parents=[root["id"]]),
                                           item(3, scope="other:x")])  # fmt: skip
    child, other = made["createItems"]["items"]
    return {"root": root["id"], "child": child["id"], "other": other["id"]}


@pytest.fixture
def page(server: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    executable = chromium()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        tab = context.new_page()
        tab.console_errors = []  # CSP violations and script errors land here
        tab.on("console", lambda m: m.type == "error" and tab.console_errors.append(m.text))
        tab.on("pageerror", lambda e: tab.console_errors.append(str(e)))
        tab.goto(f"{server}/explore")
        yield tab
        browser.close()


def test_search_select_and_expand(page: Any, server: str, seeded: dict[str, str]) -> None:
    from playwright.sync_api import expect

    page.get_by_label("Scope prefix").fill("proj:explorer/")
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#status")).to_have_text("2 items")
    results = page.locator("#results .result")
    expect(results).to_have_count(2)
    assert page.evaluate("document.querySelectorAll('#graph canvas').length") > 0

    page.locator(f"#results .result[data-id='{seeded['child']}']").click()
    panel = page.get_by_role("complementary", name="Item")
    expect(panel).to_be_visible()
    expect(page.locator("#item-content")).to_contain_text('"claim": "claim 2"')
    expect(page.locator("#item-events li")).to_have_count(1)
    expect(page.locator("#item-events")).to_contain_text("memory.created by agent:seed")

    page.get_by_role("button", name="Show parents and children").click()
    expect(page.locator("#status")).to_have_text("1 neighbours shown")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "explorer-search.png"))
    assert page.console_errors == []

    # the page only read: the API state is as seeded
    found = graphql(server, '{ items(filter: {scopePrefix: "proj:explorer/"}) { id } }')
    assert {i["id"] for i in found["items"]} == {seeded["root"], seeded["child"]}


def test_a_bad_filter_is_reported_not_thrown(page: Any, seeded: dict[str, str]) -> None:
    from playwright.sync_api import expect

    page.get_by_label("Kind").fill("k" * 600)  # past the API's 512 characters
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#status.error")).to_contain_text("BAD_USER_INPUT")
    assert page.console_errors == []

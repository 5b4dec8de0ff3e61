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
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.engines import Engine

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


@contextmanager
def serving(data: Path, engine: Engine, **settings: str) -> Iterator[str]:
    """``memexd serve`` on a free port over ``data`` and ``engine``
    (``settings``: MEMEXD_* variables); its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEXD_")}
    env |= engine.env() | settings
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


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, module_engine: Engine) -> Iterator[str]:
    """An open server (loopback, no keys) with the default settings: text
    search and embeddings on, as on a fresh install."""
    data = tmp_path_factory.mktemp("explorer")
    with serving(data, module_engine) as base:
        yield base


def new_key(data: Path, name: str, *grants: str) -> str:
    args = [MEMEXD, "keys", "--data-dir", str(data), "create", "--name", name]
    for grant in grants:
        args += ["--grant", grant]
    done = subprocess.run(args, capture_output=True, text=True, check=True, timeout=60)
    return done.stdout.strip()


def graphql(base: str, query: str, key: str | None = None, **variables: Any) -> dict[str, Any]:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    body = httpx.post(
        f"{base}/graphql", json={"query": query, "variables": variables}, headers=headers
    ).json()
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

    page.evaluate("id => memexdExplorer.cy.getElementById(id).emit('dbltap')", seeded["child"])
    # a double click: parents, children and typed edges
    page.wait_for_function("memexdExplorer.cy.edges().length === 1")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "explorer-search.png"))
    assert page.console_errors == []

    page.get_by_label("from").nth(1).fill("0.9")  # conviction: none has one
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#status")).to_have_text("0 items")
    # the page only read: the API state is as seeded
    found = graphql(server, '{ items(filter: {scopePrefix: "proj:explorer/"}) { id } }')
    assert {i["id"] for i in found["items"]} == {seeded["root"], seeded["child"]}


def test_a_bad_filter_is_reported_not_thrown(
    page: Any, server: str, seeded: dict[str, str]
) -> None:
    from playwright.sync_api import expect

    page.get_by_label("Kind").fill("k" * 600)  # past the API's 512 characters
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#status.error")).to_contain_text("BAD_USER_INPUT")
    assert page.console_errors == []
    assert set(state(server, "proj:explorer/")) == {seeded["root"], seeded["child"]}


MISSING = "0190a000-0000-7000-8000-0000000000ee"


def create(server: str, scope: str, *parents: str, **fields: Any) -> str:
    made = graphql(server, CREATE, inputs=[item(0, scope=scope, parents=list(parents), **fields)])
    created: str = made["createItems"]["items"][0]["id"]
    return created


def search(page: Any, scope: str, expected: int) -> None:
    from playwright.sync_api import expect

    page.get_by_label("Scope prefix").fill(scope)
    page.get_by_role("button", name="Search").click()
    noun = "item" if expected == 1 else "items"
    expect(page.locator("#status")).to_have_text(f"{expected} {noun}")


def state(server: str, prefix: str) -> dict[str, bool]:
    """Every item under ``prefix`` and whether it is retracted, as the API has them."""
    data = graphql(server, "query($p: String) { items(filter: {scopePrefix: $p}, "
                   "includeRetracted: true) { id retracted } }", p=prefix)  # fmt: skip
    return {i["id"]: i["retracted"] for i in data["items"]}


def classes(page: Any, node: str) -> list[str]:
    found: list[str] = page.evaluate("id => memexdExplorer.cy.getElementById(id).classes()", node)
    return found


def until(page: Any, expression: str, timeout: float = 15.0) -> None:
    """Poll ``expression`` in the page until it is true. (``wait_for_function``
    evaluates its string with eval(), which the explorer's CSP refuses: it
    fails or passes by timing; ``evaluate`` goes through the debugger.)"""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"never true: {expression}")
        time.sleep(0.1)


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"explorer-{name}.png"))


def test_provenance_marks_retracted_and_missing_parents(page: Any, server: str) -> None:
    from playwright.sync_api import expect

    gone = create(server, "prov:a")
    parent = create(server, "prov:a")
    child = create(server, "prov:a", parent, gone, MISSING)
    graphql(server, 'mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }',
            id=gone)  # fmt: skip
    search(page, "prov:", 2)
    page.locator(f"#results .result[data-id='{child}']").click()
    page.get_by_role("button", name="Provenance").click()
    expect(page.locator("#status")).to_have_text(
        "Support of the item: 2 items, 1 retracted and 1 missing parents"
    )
    assert "missing" in classes(page, MISSING)
    assert "retracted" in classes(page, gone)
    assert page.evaluate("memexdExplorer.cy.edges().length") == 3
    shot(page, "provenance")
    assert page.console_errors == []
    assert state(server, "prov:") == {gone: True, parent: False, child: False}  # only read


def test_typed_edges_get_a_colour_and_a_legend(page: Any, server: str) -> None:
    from playwright.sync_api import expect

    a, b = create(server, "typed:a"), create(server, "typed:a")
    graphql(server, 'mutation($a: ID!, $b: ID!) { createEdge(input: {from: $a, to: $b, '
            'kind: "SUPPORTS", author: "u", sourceKind: "o", authority: 0.5}) '
            "{ edge { edgeId } } }", a=a, b=b)  # fmt: skip
    search(page, "typed:", 2)
    page.locator(f"#results .result[data-id='{a}']").click()
    page.get_by_role("button", name="Typed edges").click()
    expect(page.locator("#status")).to_have_text("1 typed edges")
    expect(page.locator("#legend li[data-kind='SUPPORTS']")).to_be_visible()
    kinds = page.evaluate("memexdExplorer.cy.edges('.typed').map(e => e.data('kind'))")
    assert kinds == ["SUPPORTS"]
    shot(page, "typed-edges")
    assert state(server, "typed:") == {a: False, b: False}
    edges = graphql(server, "query($id: ID!) { item(id: $id) { edges { kind } } }", id=a)
    assert edges["item"]["edges"] == [{"kind": "SUPPORTS"}]


def test_cascade_preview_then_confirm(page: Any, server: str) -> None:
    from playwright.sync_api import expect

    root = create(server, "casc:a")
    middle = create(server, "casc:a", root)
    leaf = create(server, "casc:a", middle)
    search(page, "casc:", 3)
    page.locator(f"#results .result[data-id='{root}']").click()
    page.get_by_role("button", name="Preview cascade").click()
    dialog = page.get_by_role("alertdialog")
    expect(dialog).to_contain_text("retracts 2 dependents with it (3 items in all)")
    assert all("doomed" in classes(page, i) for i in (root, middle, leaf))
    shot(page, "cascade-preview")
    page.get_by_role("button", name="Cancel").click()
    assert not any("doomed" in classes(page, i) for i in (root, middle, leaf))
    live = graphql(server, '{ items(filter: {scopePrefix: "casc:"}) { id } }')["items"]
    assert len(live) == 3  # cancelled: nothing happened

    page.get_by_role("button", name="Preview cascade").click()
    page.get_by_role("button", name="Confirm").click()
    expect(page.locator("#status")).to_have_text("Retracted 3 items.")
    assert graphql(server, '{ items(filter: {scopePrefix: "casc:"}) { id } }')["items"] == []
    assert "retracted" in classes(page, leaf)
    assert page.console_errors == []


def test_resolve_a_contradiction_from_the_review_queue(page: Any, server: str) -> None:
    from playwright.sync_api import expect

    a = create(server, "contra:a", authority=0.9)
    b = create(server, "contra:a", authority=0.6)
    graphql(server, 'mutation($a: ID!, $b: ID!) { markContradiction(a: $a, b: $b, '
            'author: "u") { edge { edgeId } } }', a=a, b=b)  # fmt: skip
    page.get_by_role("button", name="Contradictions").click()
    queue = page.locator("#contradictions li")
    expect(queue).to_have_count(1)
    queue.get_by_role("button", name="Provenance of claim 0 (authority 0.60)").click()
    expect(page.locator("#status")).to_have_text(
        "Support of the item: 1 items, 0 retracted and 0 missing parents"
    )
    expect(page.locator("#item-fields")).to_contain_text(b)
    queue.get_by_role("button", name="Keep claim 0 (authority 0.90)").click()
    expect(page.get_by_role("alertdialog")).to_contain_text("supersede claim 0")
    shot(page, "contradiction")
    page.get_by_role("button", name="Confirm").click()
    expect(page.locator("#status")).to_have_text("0 contradictions to review")
    expect(queue).to_have_count(0)
    after = graphql(server, "query($ids: [ID!]) { items(filter: {ids: $ids}) { id authority } "
                    "contradictions { edge { edgeId } } }", ids=[a, b])  # fmt: skip
    assert after["contradictions"] == []
    scores = {i["id"]: i["authority"] for i in after["items"]}
    assert scores == {a: 0.9, b: 0.6 * 0.1}
    assert page.console_errors == []


def test_mark_an_alias_and_see_the_group(page: Any, server: str) -> None:
    from playwright.sync_api import expect

    a, b = create(server, "alias:a"), create(server, "alias:a")
    search(page, "alias:", 2)
    page.locator(f"#results .result[data-id='{a}']").click()
    page.get_by_label("Alias of (item id)").fill(b)
    page.get_by_role("button", name="Mark alias").click()
    expect(page.get_by_role("alertdialog")).to_contain_text("as aliases")
    page.get_by_role("button", name="Confirm").click()
    expect(page.locator("#status")).to_have_text("Alias group of 2 items")
    group = graphql(server, "query($id: ID!) { aliasGroup(id: $id) { id } }", id=a)
    assert {i["id"] for i in group["aliasGroup"]} == {a, b}
    shot(page, "aliases")
    assert page.console_errors == []


def test_live_updates_redraw_the_graph(page: Any, server: str) -> None:
    from playwright.sync_api import expect

    root = create(server, "live:a")
    # the page subscribes after the root exists: its event is before the feed
    # starts (with several workers it would otherwise arrive up to a poll
    # later, maybe after the search below made it one to show)
    page.reload()
    indicator = page.get_by_role("status", name="Live updates")
    expect(indicator).to_have_text("live")
    search(page, "live:", 1)
    child = create(server, "live:a", root)  # made elsewhere: the page hears of it
    page.wait_for_function("id => !memexdExplorer.cy.getElementById(id).empty()", arg=child)
    assert page.evaluate("memexdExplorer.cy.edges().length") == 1
    graphql(server, 'mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }',
            id=child)  # fmt: skip
    page.wait_for_function(
        "id => memexdExplorer.cy.getElementById(id).hasClass('retracted')", arg=child
    )
    expect(indicator).to_have_text("live · 2 updates")
    shot(page, "live")
    assert page.console_errors == []
    assert state(server, "live:") == {root: False, child: True}


def test_a_key_shows_only_what_it_grants_and_writes_only_where_allowed(
    tmp_path: Path, graph_engine: Engine
) -> None:
    from playwright.sync_api import expect, sync_playwright

    executable = chromium()
    admin = new_key(tmp_path, "admin", "admin:")
    reader = new_key(tmp_path, "reader", "read:team:a/")
    with serving(tmp_path, graph_engine) as base:
        mine = graphql(base, CREATE, admin, inputs=[item(1, scope="team:a/x")])
        graphql(base, CREATE, admin, inputs=[item(2, scope="team:b/x")])
        (seen,) = mine["createItems"]["items"]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable,
                                                 args=["--no-sandbox"])  # fmt: skip
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/explore")
            page.get_by_label("Scope prefix").fill("team:")
            page.get_by_role("button", name="Search").click()
            expect(page.locator("#status.error")).to_contain_text("UNAUTHENTICATED")

            page.get_by_role("textbox", name="API key").fill(reader)
            page.get_by_role("button", name="Use key").click()
            expect(page.get_by_role("status", name="Live updates")).to_have_text("live")
            page.get_by_role("button", name="Search").click()
            expect(page.locator("#status")).to_have_text("1 item")  # team:b is not its to see
            page.locator(f"#results .result[data-id='{seen['id']}']").click()
            page.get_by_role("button", name="Preview cascade").click()
            page.get_by_role("button", name="Confirm").click()
            expect(page.locator("#status.error")).to_contain_text("FORBIDDEN")
            shot(page, "access")
            browser.close()
        still = graphql(base, "query($id: ID!) { item(id: $id) { retracted } }", admin,
                        id=seen["id"])  # fmt: skip
        assert still["item"] == {"retracted": False}


def test_neighbours_by_keyboard_with_retracted_ones_on_request(page: Any, server: str) -> None:
    """Every node shown is also a button in "In the graph", so the keyboard
    reaches a neighbour; "retracted too" brings retracted neighbours, greyed."""
    from playwright.sync_api import expect

    root = create(server, "keys:a")
    kept, gone = create(server, "keys:b", root), create(server, "keys:b", root)
    graphql(server, 'mutation($id: ID!) { retractItem(id: $id, author: "u") { events { id } } }',
            id=gone)  # fmt: skip
    search(page, "keys:a", 1)
    page.get_by_label("retracted too").check()
    page.locator(f"#results .result[data-id='{root}']").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#item-fields")).to_contain_text(root)
    page.get_by_role("button", name="Show parents and children").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_have_text("2 neighbours shown")
    assert "retracted" in classes(page, gone)
    assert "retracted" not in classes(page, kept)
    shown = page.get_by_role("list", name="In the graph")
    shown.locator(f"button[data-id='{gone}']").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#item-title")).to_have_text("fact (retracted)")
    assert page.console_errors == []
    assert state(server, "keys:") == {root: False, kept: False, gone: True}


def test_search_by_words(page: Any, server: str) -> None:
    from playwright.sync_api import expect

    hit = create(server, "words:a", content={"note": "The kettle was boiling"})
    create(server, "words:a", content={"note": "cold water"})
    page.get_by_label("What do you remember about…").fill("boil kettles")
    page.get_by_label("words only (all of them)").check()
    page.get_by_label("Scope prefix").fill("words:")
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#status")).to_have_text("1 item")
    expect(page.locator(f"#results .result[data-id='{hit}']")).to_be_visible()
    shot(page, "words")
    assert page.console_errors == []
    assert len(state(server, "words:")) == 2


RECALLED = """query($cue: String!, $p: String) {
  recall(input: {cue: $cue, filter: {scopePrefix: $p}, mode: VECTOR, minScore: 0}) {
    item { id } } }"""


def ask_by_meaning(page: Any, server: str, question: str, prefix: str, count: int) -> None:
    """Once the ``count`` items under ``prefix`` are embedded (in the
    background, a moment after writing), search for ``question``."""
    from playwright.sync_api import expect

    deadline = time.monotonic() + 120
    while len(graphql(server, RECALLED, cue="x", p=prefix)["recall"]) < count:
        assert time.monotonic() < deadline, "the items were not embedded"
        time.sleep(0.2)
    page.get_by_label("What do you remember about…").fill(question)
    page.get_by_label("Scope prefix").fill(prefix)
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#status")).to_have_text(f"{count} items by meaning")


def test_search_by_meaning_shows_what_items_say(page: Any, server: str) -> None:
    from playwright.sync_api import expect

    notes = ["The login page rejects expired session tokens", "We moved the team lunch to Friday",
             "Invoices are sent on the first of each month", "The cat sleeps on the windowsill",
             "Backups run nightly at two in the morning"]  # fmt: skip
    ids = [create(server, "meaning:a", content={"note": note}) for note in notes]
    ask_by_meaning(page, server, "why can users not sign in?", "meaning:", len(notes))
    first = page.locator("#results .result").first
    expect(first).to_have_attribute("data-id", ids[0])
    expect(first).to_contain_text(f"{notes[0]} — fact · meaning:a (")
    labels = page.evaluate("memexdExplorer.cy.nodes().map(n => n.data('label'))")
    assert sorted(labels) == sorted(notes)
    # no two labels (nor their nodes) overlap in the drawn graph
    boxes = page.evaluate(
        "memexdExplorer.cy.nodes().map(n => n.boundingBox({includeLabels: true}))"
    )
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = (
                a["x2"] <= b["x1"] or b["x2"] <= a["x1"] or a["y2"] <= b["y1"] or b["y2"] <= a["y1"]
            )
            assert apart, (a, b)
    shot(page, "meaning")
    # a question about nothing these notes hold: no hit, said in words
    page.get_by_label("What do you remember about…").fill("which telescope photographed Saturn?")
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#status")).to_have_text("Nothing relevant: no memory is about this")
    assert page.console_errors == []


def test_search_by_meaning_can_weigh_by_trust(page: Any, server: str) -> None:
    """A claim resting on a weak source sinks below a plain one when the
    search weighs by trust (effective authority, SPEC §14)."""
    from playwright.sync_api import expect

    said = {"note": "the ferry to the island leaves at nine"}
    weak = create(server, "weigh:a", content={"note": "someone on the pier"}, authority=0.1)
    resting = create(server, "weigh:a", weak, content=said, authority=0.9)
    alone = create(server, "weigh:a", content=said, authority=0.6)
    ask_by_meaning(page, server, "when does the ferry leave?", "weigh:", 3)
    results = page.locator("#results .result")
    expect(results.nth(0)).to_have_attribute("data-id", resting)  # 0.9 on its own
    page.get_by_label("weigh by trust (what it rests on)").check()
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#status")).to_have_text("3 items by meaning, weighed by trust")
    expect(results.nth(0)).to_have_attribute("data-id", alone)  # 0.9 resting on 0.1 sinks
    shot(page, "weigh-by-trust")
    assert page.console_errors == []


def test_the_item_panel_shows_the_lifecycle_and_archives(page: Any, server: str) -> None:
    from playwright.sync_api import expect

    rule = create(server, "life:a", tags=["convention"], priority="P1")
    scratch = create(server, "life:a", lifecycle="SESSION", sessionId="s7", tags=["tmp"])
    search(page, "life:", 2)
    page.locator(f"#results .result[data-id='{rule}']").click()
    fields = page.locator("#item-fields")
    expect(fields).to_contain_text("lifecyclePROJECT")
    expect(fields).to_contain_text("priorityP1")
    expect(fields).to_contain_text("tagsconvention")
    expect(fields).to_contain_text("decay score1.500")
    expect(page.get_by_role("button", name="Archive")).to_be_hidden()  # PROJECT: never
    graphql(server, 'mutation { setWorkingMemory(scope: "life:a", sessionId: "s7", capacity: 5) '
            "{ capacity } }")  # fmt: skip
    page.locator(f"#results .result[data-id='{scratch}']").click()
    expect(fields).to_contain_text("lifecycleSESSION")
    expect(fields).to_contain_text("sessions7")
    expect(fields).to_contain_text("working memory1 of 5 held")
    page.get_by_role("button", name="Archive").click()
    expect(page.locator("#status")).to_have_text("Archived: searches leave it out now.")
    expect(fields).to_contain_text("lifecycleSESSION (archived)")
    assert "archived" in classes(page, scratch)
    search(page, "life:", 1)  # searches leave it out
    page.get_by_label("archived too").check()
    search(page, "life:", 2)
    page.locator(f"#results .result[data-id='{scratch}']").click()
    page.get_by_role("button", name="Unarchive").click()
    expect(page.locator("#status")).to_have_text("Unarchived.")
    got = graphql(server, "query($id: ID!) { item(id: $id) { archived } }", id=scratch)
    assert got["item"] == {"archived": False}
    shot(page, "lifecycle")
    assert page.console_errors == []


def test_the_item_panel_promotes(page: Any, server: str) -> None:
    from playwright.sync_api import expect

    found = create(server, "promo:a", lifecycle="SESSION", content={"note": "pin the deps"})
    search(page, "promo:", 1)
    page.locator(f"#results .result[data-id='{found}']").click()
    page.get_by_label("Promote as").select_option("PITFALL")
    page.get_by_role("button", name="Promote").click()
    expect(page.locator("#status")).to_have_text("Promoted to project knowledge.")
    fields = page.locator("#item-fields")
    expect(fields).to_contain_text("lifecyclePROJECT")
    expect(fields).to_contain_text("tagspitfall")
    got = graphql(server, 'query($id: ID!) { edges(filter: {to: $id, kind: "DISCOVERED_FROM"}) '
                  "{ edgeId from } }", id=found)  # fmt: skip
    (edge,) = got["edges"]
    drawn = page.evaluate("id => memexdExplorer.cy.getElementById(id).data()", edge["edgeId"])
    assert (drawn["source"], drawn["target"], drawn["kind"]) == (
        edge["from"], found, "DISCOVERED_FROM")  # fmt: skip
    assert page.evaluate("id => memexdExplorer.cy.getElementById(id).data('label')",
                         edge["from"]) == "pin the deps"  # fmt: skip
    assert page.console_errors == []


def test_live_updates_keep_what_items_say(page: Any, server: str) -> None:
    """An update heard from the feed relabels its node with the server's
    summary of the new content; archival marks it."""
    root = create(server, "relabel:a", content={"note": "first words"})
    page.reload()
    from playwright.sync_api import expect

    expect(page.get_by_role("status", name="Live updates")).to_have_text("live")
    search(page, "relabel:", 1)
    graphql(server, 'mutation($id: ID!) { updateItem(id: $id, patch: {content: {note: "second '
            'words"}}, author: "u") { item { id } } }', id=root)  # fmt: skip
    page.wait_for_function(
        "id => memexdExplorer.cy.getElementById(id).data('label') === 'second words'", arg=root
    )
    graphql(server, 'mutation($id: ID!) { updateItem(id: $id, patch: {lifecycle: TASK}, '
            'author: "u") { item { id } } }', id=root)  # fmt: skip
    graphql(server, 'mutation($id: ID!) { archiveByDecay(input: {filter: {ids: [$id]}, '
            'threshold: 10, author: "u"}) { archivedIds } }', id=root)  # fmt: skip
    page.wait_for_function(
        "id => memexdExplorer.cy.getElementById(id).hasClass('archived')", arg=root
    )
    assert page.evaluate("id => memexdExplorer.cy.getElementById(id).data('label')", root) == (
        "second words"
    )
    assert page.console_errors == []


JOBS = """query($type: JobType) { jobs(type: $type) { id type status scopePrefix dryRun
  author result } }"""


def test_the_jobs_panel_runs_a_job(page: Any, server: str) -> None:
    """The server's own worker runs the job; the panel reads the list again
    every second while the job waits or runs, and stops once it is done."""
    from playwright.sync_api import expect

    twins = [create(server, "jobrun:a") for _ in range(3)]  # same scope, kind and content
    other = create(server, "jobrun:a", content={"note": "said once"})
    asked: list[str] = []
    page.on("request", lambda r: "query Jobs" in (r.post_data or "") and asked.append(r.url))
    page.get_by_label("Acting as").fill("user:tidy")
    page.get_by_role("button", name="Jobs").click()
    expect(page.get_by_role("button", name="Jobs")).to_have_attribute("aria-expanded", "true")
    page.get_by_label("Job type").select_option("CONSOLIDATE")
    page.get_by_label("Under scope (optional)").fill("jobrun:")
    page.get_by_role("button", name="Run job").click()
    expect(page.locator("#status")).to_have_text("Queued CONSOLIDATE.")
    job = page.locator("#jobs li", has_text="under jobrun:")
    expect(job).to_have_count(1)
    expect(job.locator(".job-status")).to_have_text("COMPLETED", timeout=30000)
    expect(job.locator(".job-result")).to_contain_text("duplicates: 2")
    expect(job.locator(".job-progress")).to_contain_text("100%")
    expect(job.locator(".job-when")).to_contain_text("finished")
    expect(job.get_by_role("button", name="Cancel job")).to_have_count(0)
    ran_id = job.get_attribute("data-id")
    expect(page.locator("#jobs li").first).to_have_attribute("data-id", ran_id)  # newest first
    shot(page, "jobs")
    until(page, "!memexdExplorer.jobsPolling()")
    polled = len(asked)
    assert polled >= 2  # on opening, and after the run
    time.sleep(2.5)  # nothing waits or runs: the list is not read again
    assert len(asked) == polled
    assert page.console_errors == []

    (ran,) = [j for j in graphql(server, JOBS)["jobs"] if j["scopePrefix"] == "jobrun:"]
    assert (ran["id"], ran["type"], ran["status"], ran["dryRun"], ran["author"]) == (
        ran_id, "CONSOLIDATE", "COMPLETED", False, "user:tidy")  # fmt: skip
    assert ran["result"]["duplicates"] == 2
    live = graphql(server, '{ items(filter: {scopePrefix: "jobrun:"}) { id } }')["items"]
    assert {i["id"] for i in live} == {twins[0], other}  # the oldest twin is kept


def test_a_dry_run_reports_and_changes_nothing(page: Any, server: str) -> None:
    from playwright.sync_api import expect

    made = [create(server, "jobdry:a") for _ in range(3)]
    page.get_by_role("button", name="Jobs").click()
    page.get_by_label("Job type").select_option("DECAY_UPDATE")
    page.get_by_label("Under scope (optional)").fill("jobdry:")
    page.get_by_label("dry run").check()
    page.get_by_role("button", name="Run job").click()
    expect(page.locator("#status")).to_have_text("Queued DECAY_UPDATE (dry run).")
    job = page.locator("#jobs li", has_text="under jobdry:")
    expect(job.locator(".job-status")).to_have_text("COMPLETED", timeout=30000)
    expect(job.locator(".job-dry")).to_have_text(" (dry run)")
    expect(job.locator(".job-result")).to_contain_text("scored: 3")

    page.get_by_label("Job type").select_option("CONSOLIDATE")  # a dry run: twins stay
    page.get_by_role("button", name="Run job").click()
    expect(page.locator("#status")).to_have_text("Queued CONSOLIDATE (dry run).")
    twins = page.locator("#jobs li", has_text="CONSOLIDATE").filter(has_text="under jobdry:")
    expect(twins.locator(".job-status")).to_have_text("COMPLETED", timeout=30000)
    expect(twins.locator(".job-result")).to_contain_text("duplicates: 2")
    shot(page, "jobs-dry-run")
    assert page.console_errors == []
    ran = [j for j in graphql(server, JOBS)["jobs"] if j["scopePrefix"] == "jobdry:"]
    assert [(j["type"], j["dryRun"]) for j in ran] == [("CONSOLIDATE", True),
                                                       ("DECAY_UPDATE", True)]  # fmt: skip
    assert state(server, "jobdry:") == dict.fromkeys(made, False)
    live = graphql(server, '{ items(filter: {scopePrefix: "jobdry:"}) { id } }')["items"]
    assert len(live) == 3  # none archived


def test_a_job_the_server_refuses_shows_why(page: Any, server: str) -> None:
    from playwright.sync_api import expect

    page.get_by_role("button", name="Jobs").click()
    page.get_by_label("Under scope (optional)").fill("s" * 600)  # past the API's 512 characters
    page.get_by_role("button", name="Run job").click()
    expect(page.locator("#status.error")).to_contain_text("BAD_USER_INPUT")
    expect(page.locator("#jobs li", has_text="under sss")).to_have_count(0)
    assert page.console_errors == []
    assert not [j for j in graphql(server, JOBS)["jobs"] if (j["scopePrefix"] or "")[:3] == "sss"]


SCHEDULE = """mutation { createSchedule(input: {name: "nightly tidy", cron: "0 3 * * *",
  job: {type: CONSOLIDATE, scopePrefix: "team:a/", author: "u"}}) { id } }"""


def test_a_queued_job_is_cancelled_and_a_reader_may_not_run_one(
    tmp_path: Path, graph_engine: Engine
) -> None:
    """A server that runs no jobs (MEMEXD_JOBS_CONCURRENCY=0): what is queued
    stays QUEUED, so the panel polls until it is closed or the job cancelled."""
    from playwright.sync_api import expect, sync_playwright

    executable = chromium()
    admin = new_key(tmp_path, "admin", "admin:")
    reader = new_key(tmp_path, "reader", "read:team:a/")
    with serving(tmp_path, graph_engine, MEMEXD_JOBS_CONCURRENCY="0") as base:
        graphql(base, SCHEDULE, admin)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable,
                                                 args=["--no-sandbox"])  # fmt: skip
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/explore")
            page.get_by_role("textbox", name="API key").fill(admin)
            page.get_by_role("button", name="Use key").click()
            page.get_by_role("button", name="Jobs").click()
            expect(page.locator("#jobs")).to_have_text("No jobs yet.")
            expect(page.locator("#schedules li")).to_contain_text("nightly tidy — 0 3 * * * (UTC)")
            expect(page.locator("#schedules li")).to_contain_text("· next ")

            page.get_by_label("Under scope (optional)").fill("team:a/")
            page.get_by_role("button", name="Run job").click()
            job = page.locator("#jobs li", has_text="under team:a/")
            expect(job.locator(".job-status")).to_have_text("QUEUED")
            expect(job.locator(".job-progress")).to_contain_text("0%")
            until(page, "memexdExplorer.jobsPolling()")
            page.get_by_role("button", name="Jobs").click()  # closed: no more polling
            expect(page.locator("#jobs-pane")).to_be_hidden()
            assert not page.evaluate("memexdExplorer.jobsPolling()")
            page.get_by_role("button", name="Jobs").click()
            until(page, "memexdExplorer.jobsPolling()")
            job.get_by_role("button", name="Cancel job").click()
            expect(page.locator("#status")).to_have_text("Job cancelled.")
            expect(job.locator(".job-status")).to_have_text("CANCELLED")
            expect(job.get_by_role("button", name="Cancel job")).to_have_count(0)
            until(page, "!memexdExplorer.jobsPolling()")
            shot(page, "jobs-cancelled")

            page.get_by_role("textbox", name="API key").fill(reader)
            page.get_by_role("button", name="Use key").click()
            page.get_by_role("button", name="Run job").click()
            expect(page.locator("#status.error")).to_contain_text("FORBIDDEN")
            browser.close()
        jobs = graphql(base, JOBS, admin)["jobs"]
        assert [(j["status"], j["scopePrefix"]) for j in jobs] == [("CANCELLED", "team:a/")]


def test_the_item_panel_shows_how_far_to_trust_it(page: Any, server: str) -> None:
    """Effective authority and the trust path (SPEC §14) in the item panel."""
    from playwright.sync_api import expect

    root = create(server, "trust:a", content={"claim": "the bridge is open"}, authority=0.9)
    weak = create(server, "trust:a", root, content={"claim": "a driver said so"}, authority=0.3)
    leaf = create(server, "trust:a", weak, content={"claim": "so go that way"}, authority=0.8)
    search(page, "trust:", 3)
    page.locator(f"#results .result[data-id='{leaf}']").click()
    fields = page.locator("#item-fields")
    expect(fields).to_contain_text("effective authority0.30")
    path = "the bridge is open → a driver said so → so go that way"
    expect(fields).to_contain_text(f"trust path{path}")
    shot(page, "trust")
    assert page.console_errors == []


def test_the_time_slider_shows_the_graph_as_it_was(page: Any, server: str) -> None:
    """The graph as of an instant (SPEC §14): an item as its fields were
    then, one made after it absent; the slider sets the instant, Now clears it."""
    from playwright.sync_api import expect

    first = create(server, "time:a", content={"claim": "the bridge is open"})
    events = graphql(server, "query($i: [ID!]) { events(filter: {itemIds: $i}) { ts } }",
                     i=[first])["events"]  # fmt: skip
    then = int(datetime.fromisoformat(events[-1]["ts"]).timestamp() * 1000) + 1
    time.sleep(0.01)
    graphql(server, 'mutation($id: ID!) { updateItem(id: $id, patch: {content: {claim: '
            '"the bridge is closed"}}, author: "u") { item { id } } }', id=first)  # fmt: skip
    create(server, "time:a", content={"claim": "take the tunnel"})
    search(page, "time:", 2)
    local = page.evaluate("ms => new Date(ms - new Date(ms).getTimezoneOffset() * 60000)"
                          ".toISOString().slice(0, 23)", then)  # fmt: skip
    page.get_by_label("Instant (empty: now)").fill(local)
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#status")).to_contain_text("1 item as of ")
    expect(page.locator("#results")).to_contain_text("the bridge is open")
    page.locator(f"#results .result[data-id='{first}']").click()
    expect(page.locator("#item-title")).to_contain_text(" as of ")
    expect(page.locator("#item-content")).to_contain_text("the bridge is open")
    shot(page, "as-of")
    page.get_by_role("button", name="Now").click()
    assert page.get_by_label("Instant (empty: now)").input_value() == ""
    page.locator("#as-of-slider").fill("0")  # the log's first event
    until(page, "document.getElementById('f-as-of').value !== ''")
    page.get_by_role("button", name="Now").click()
    search(page, "time:", 2)
    expect(page.locator("#results")).to_contain_text("the bridge is closed")
    assert page.console_errors == []


def test_an_ingest_is_undone_from_the_item_panel(page: Any, server: str) -> None:
    """Undo this ingest: the dry run's plan in the dialog, then the undo."""
    from playwright.sync_api import expect

    rows = [item(n, scope="undo:a") for n in (1, 2)]
    answer = httpx.post(f"{server}/graphql", json={"query": CREATE, "variables": {"inputs": rows}},
                        headers={"x-trace-id": "explorer-ingest"}).json()  # fmt: skip
    made = [i["id"] for i in answer["data"]["createItems"]["items"]]
    keep = create(server, "undo:a")
    search(page, "undo:", 3)
    page.locator(f"#results .result[data-id='{made[0]}']").click()
    page.get_by_role("button", name="Undo this ingest").click()
    dialog = page.get_by_role("alertdialog")
    expect(dialog).to_contain_text("retract 2 items, restore 0, retract 0 edges")
    assert all("doomed" in classes(page, i) for i in made)
    assert "doomed" not in classes(page, keep)
    page.get_by_role("button", name="Confirm").click()
    expect(page.locator("#status")).to_have_text("Undone: 2 items retracted, 0 restored.")
    assert state(server, "undo:") == {made[0]: True, made[1]: True, keep: False}
    assert all("retracted" in classes(page, i) for i in made)
    shot(page, "undo")
    assert page.console_errors == []

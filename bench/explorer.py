"""The explorer with a large neighbourhood: time until 2,000 nodes are laid out
and the page answers a click on one of them.

Run: ``.venv/bin/python bench/explorer.py [--children N] [--runs K]``

One ``memexd serve`` (embedded FalkorDB); an item with ``--children`` children
made through ``createItems``; then, in the system's Chromium driven by
Playwright (``MEMEXD_CHROMIUM`` names another executable), ``--runs`` times:
open ``/explore``, search the item's scope, select the root and press "Show
parents and children". Printed per run: the time from that press until the
graph holds every neighbour, laid out and painted, and the time from a click
(a tap) on one of the new nodes until its record is in the item panel and
painted, both measured in the page; then the medians, against the 3 s target
for the sum.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import time
from typing import Any

import httpx
from _common import CREATE_ITEMS, batches, graphql, memexd_server
from playwright.sync_api import expect, sync_playwright


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--children", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=5)
    return parser.parse_args()


def seed(client: httpx.Client, children: int) -> tuple[str, list[str]]:
    item = {"scope": "bench:root", "kind": "fact", "content": {"n": 0},
            "author": "bench", "sourceKind": "o", "authority": 0.5}  # fmt: skip
    made = graphql(client, CREATE_ITEMS, {"inputs": [item]})
    root = made["createItems"]["items"][0]["id"]
    ids = []
    rows = [{**item, "scope": "bench:kids", "content": {"n": n + 1}, "parents": [root]}
            for n in range(children)]  # fmt: skip
    for chunk in batches(rows, 1_000):
        done = graphql(client, CREATE_ITEMS, {"inputs": list(chunk)})
        ids += [i["id"] for i in done["createItems"]["items"]]
    return root, ids


# Timed in the page: from the action until the page shows its answer and has
# painted it (two animation frames later), as a person would see it. (No eval:
# the page's content security policy forbids it.)
_PAINTED = """
  const frame = () => new Promise(r => requestAnimationFrame(() => r()));
  const until = async (done) => {
    while (!done()) await new Promise(r => setTimeout(r, 5));
    await frame(); await frame();
  };
"""
_EXPAND = (
    "async (children) => {"
    + _PAINTED
    + """
  const start = performance.now();
  document.getElementById("expand").click();
  const status = document.getElementById("status");
  await until(() => status.textContent === children + " neighbours shown");
  return (performance.now() - start) / 1000;
}"""
)
_TAP = (
    "async (id) => {"
    + _PAINTED
    + """
  const start = performance.now();
  memexdExplorer.cy.getElementById(id).emit("tap");
  const fields = document.getElementById("item-fields");
  await until(() => fields.textContent.includes(id));
  return (performance.now() - start) / 1000;
}"""
)


def run_once(
    page: Any, base: str, root: str, some_child: str, children: int
) -> tuple[float, float]:
    page.goto(f"{base}/explore")
    page.get_by_label("Scope prefix").fill("bench:root")
    page.get_by_role("button", name="Search").click()
    page.locator(f"#results .result[data-id='{root}']").click()
    expect(page.locator("#item-fields")).to_contain_text(root)
    laid_out: float = page.evaluate(_EXPAND, children)
    count = page.evaluate("memexdExplorer.cy.nodes().length")
    if count < children + 1:
        raise RuntimeError(f"only {count} nodes shown")
    wall = time.perf_counter()
    answered: float = page.evaluate(_TAP, some_child)
    wall = time.perf_counter() - wall
    if wall > answered + 1:  # the page's clock and ours must agree
        raise RuntimeError(f"the click took {wall:.2f} s from outside, {answered:.2f} s inside")
    return laid_out, answered


def main() -> None:
    args = _args()
    executable = os.environ.get("MEMEXD_CHROMIUM") or shutil.which("chromium")
    if not executable:
        raise SystemExit("no Chromium: apt-get install -y chromium, or set MEMEXD_CHROMIUM")
    with memexd_server() as server, httpx.Client(base_url=server.base_url, timeout=600) as client:
        root, kids = seed(client, args.children)
        print(f"explorer: one item with {len(kids):,} children, {args.runs} runs, 1280x800")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            runs = []
            for k in range(args.runs):
                laid_out, answered = run_once(page, server.base_url, root, kids[k], len(kids))
                runs.append((laid_out, answered))
                print(f"  run {k + 1}: laid out in {laid_out:.2f} s, click answered in "
                      f"{answered:.2f} s")  # fmt: skip
            browser.close()
        laid_out = statistics.median(r[0] for r in runs)
        answered = statistics.median(r[1] for r in runs)
        total = laid_out + answered
        verdict = "met" if total <= 3 else "MISSED"
        print(f"median: laid out {laid_out:.2f} s + click {answered:.2f} s = {total:.2f} s "
              f"(target <= 3 s: {verdict})")  # fmt: skip


if __name__ == "__main__":
    main()

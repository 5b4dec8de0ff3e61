"""The graph explorer: the page ``memexd serve`` shows at ``/explore``, where a
person searches what the agents believe, sees it as a graph and reads an
item's record and history.

The page is static; it talks to ``/graphql`` like any client, with the API key
the person enters (kept in the tab's session storage), so it shows only what
the key may read. Its script and style are ``static/explorer/explorer.js`` and
``explorer.css``; Cytoscape.js and cytoscape-dagre are vendored in
``static/explorer/vendor`` by ``tools/vendor-explorer`` (pinned versions,
licences beside them). Everything loads from the same origin, under a content
security policy that allows nothing else.
"""

from __future__ import annotations

from html import escape
from typing import Final

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import BaseRoute, Route

from memexd.server.assets import AssetFolder

__all__ = ["ASSET_PATH", "EXPLORE_PATH", "page", "routes"]

EXPLORE_PATH: Final = "/explore"
ASSET_PATH: Final = "/explore/assets"

_FILES: Final = AssetFolder("explorer", ASSET_PATH)
# Load order matters: cytoscape-dagre registers itself with the cytoscape global.
_SCRIPTS: Final = ("vendor/cytoscape.min.js", "vendor/cytoscape-dagre.min.js", "explorer.js")
_STYLESHEETS: Final = ("explorer.css",)
_POLICY: Final = (
    # Cytoscape.js adds a <style> element and style attributes for its container:
    # inline styles are allowed (they cannot run code); scripts come from here only
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def page(endpoint: str = "/graphql") -> str:
    """The explorer's HTML; its script sends GraphQL requests to ``endpoint``."""
    styles = "\n".join(
        f'  <link rel="stylesheet" href="{escape(_FILES.url(n))}">' for n in _STYLESHEETS
    )
    scripts = "\n".join(f'  <script src="{escape(_FILES.url(n))}"></script>' for n in _SCRIPTS)
    icon = escape(_FILES.url("favicon.svg"))
    template = _FILES.read("explorer.html").decode()
    return template.format(styles=styles, scripts=scripts, icon=icon, endpoint=escape(endpoint))


async def _explore(request: Request) -> HTMLResponse:
    return HTMLResponse(page(), headers={"Content-Security-Policy": _POLICY,
                                         "X-Content-Type-Options": "nosniff"})  # fmt: skip


def routes() -> list[BaseRoute]:
    """The page and its assets."""
    return [Route(EXPLORE_PATH, _explore, methods=["GET"], name="explore"), *_FILES.routes]

"""The GraphiQL page and the routes that serve its assets from the installed package.

This module owns the HTML page memexd shows at ``/graphql`` to a browser, and the
files under ``static/graphiql/`` beside it: GraphiQL, React and the explorer
plugin, vendored by ``tools/vendor-graphiql`` (pinned versions, licences in the
folder, see its ``VERSIONS.txt``). The page loads them from :data:`ASSET_PATH` on
the same origin, so GraphiQL works without internet access; nothing it references
lives on another host.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from html import escape
from importlib.resources import files
from typing import Final

from starlette.responses import Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

__all__ = ["ASSET_PATH", "asset_routes", "page"]

ASSET_PATH: Final = "/graphql/assets"
"""URL prefix the vendored GraphiQL files are served under."""

_PACKAGE: Final = "memexd.server"
_FOLDER: Final = ("static", "graphiql")

# Load order matters: GraphiQL's UMD bundle reads the React and ReactDOM globals,
# the explorer plugin reads React and GraphiQL.
_STYLESHEETS: Final = ("graphiql.min.css", "graphiql-plugin-explorer.css")
_SCRIPTS: Final = (
    "react.production.min.js",
    "react-dom.production.min.js",
    "graphiql.min.js",
    "graphiql-plugin-explorer.umd.js",
)

# The page asks for each file with ?v=<content hash>, so a new release of the files
# reaches browsers at once and the files themselves may be cached for a while.
_CACHE_CONTROL: Final = "public, max-age=604800"

_PAGE: Final = """\
<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>memexd GraphiQL</title>
{stylesheets}
    <style>
      html, body {{ height: 100%; margin: 0; overflow: hidden; }}
      #graphiql {{ height: 100vh; }}
    </style>
  </head>
  <body>
    <div id="graphiql">Loading…</div>
    <noscript>GraphiQL needs JavaScript.</noscript>
{scripts}
    <script>
      (function () {{
        var endpoint = {endpoint};
        // POSTs {{query, variables, operationName}} as JSON to the endpoint.
        var fetcher = GraphiQL.createFetcher({{ url: endpoint }});
        var plugins = window.GraphiQLPluginExplorer
          ? [GraphiQLPluginExplorer.explorerPlugin()]
          : [];
        var root = ReactDOM.createRoot(document.getElementById("graphiql"));
        root.render(
          React.createElement(GraphiQL, {{
            fetcher: fetcher,
            plugins: plugins,
            defaultEditorToolsVisibility: true,
            inputValueDeprecation: true,
          }})
        );
      }})();
    </script>
  </body>
</html>
"""


def _static_file(name: str) -> bytes:
    return files(_PACKAGE).joinpath(*_FOLDER, name).read_bytes()


@cache
def _asset_url(name: str) -> str:
    """Same-origin URL of one vendored file, with a token that changes with its content."""
    digest = hashlib.sha256(_static_file(name)).hexdigest()[:12]
    return f"{ASSET_PATH}/{name}?v={digest}"


def _js_string(value: str) -> str:
    """A JavaScript string literal that is safe inside an HTML ``<script>`` element."""
    literal = json.dumps(value)  # ASCII only, so U+2028/U+2029 arrive escaped too
    return literal.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page(endpoint: str = "/graphql") -> str:
    """The GraphiQL HTML page, sending its GraphQL requests to ``endpoint``.

    Scripts and stylesheets come from :data:`ASSET_PATH` only; serve them with
    :func:`asset_routes`.
    """
    stylesheets = "\n".join(
        f'    <link rel="stylesheet" href="{escape(_asset_url(name))}">' for name in _STYLESHEETS
    )
    scripts = "\n".join(
        f'    <script src="{escape(_asset_url(name))}"></script>' for name in _SCRIPTS
    )
    return _PAGE.format(stylesheets=stylesheets, scripts=scripts, endpoint=_js_string(endpoint))


class _Assets(StaticFiles):
    """Static files with cache and no-sniff headers."""

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = _CACHE_CONTROL
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response


def asset_routes() -> list[BaseRoute]:
    """Routes serving the vendored GraphiQL files under :data:`ASSET_PATH`.

    The files are found in the installed ``memexd.server`` package, so this fails at
    once (``AssertionError`` from Starlette) if a build left ``static/graphiql`` out.
    """
    assets = _Assets(packages=[(_PACKAGE, "/".join(_FOLDER))])
    return [Mount(ASSET_PATH, app=assets, name="graphiql-assets")]

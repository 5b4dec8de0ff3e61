"""The GraphiQL page and the routes that serve its assets from the installed package.

This module owns the HTML page memexd shows at ``/graphql`` to a browser, and the
files under ``static/graphiql/`` beside it: GraphiQL, React and the explorer
plugin, vendored by ``tools/vendor-graphiql`` (pinned versions, licences in the
folder, see its ``VERSIONS.txt``). The page loads them from :data:`ASSET_PATH` on
the same origin, so GraphiQL works without internet access; nothing it references
lives on another host.
"""

from __future__ import annotations

from html import escape
from typing import Final

from starlette.routing import BaseRoute

from memexd.server.assets import AssetFolder, js_string

__all__ = ["ASSET_PATH", "asset_routes", "page"]

ASSET_PATH: Final = "/graphql/assets"
"""URL prefix the vendored GraphiQL files are served under."""

_FILES: Final = AssetFolder("graphiql", ASSET_PATH)

# Load order matters: GraphiQL's UMD bundle reads the React and ReactDOM globals,
# the explorer plugin reads React and GraphiQL.
_STYLESHEETS: Final = ("graphiql.min.css", "graphiql-plugin-explorer.css")
_SCRIPTS: Final = (
    "react.production.min.js",
    "react-dom.production.min.js",
    "graphiql.min.js",
    "graphiql-plugin-explorer.umd.js",
)

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


def page(endpoint: str = "/graphql") -> str:
    """The GraphiQL HTML page, sending its GraphQL requests to ``endpoint``.

    Scripts and stylesheets come from :data:`ASSET_PATH` only; serve them with
    :func:`asset_routes`.
    """
    stylesheets = "\n".join(
        f'    <link rel="stylesheet" href="{escape(_FILES.url(name))}">' for name in _STYLESHEETS
    )
    scripts = "\n".join(
        f'    <script src="{escape(_FILES.url(name))}"></script>' for name in _SCRIPTS
    )
    return _PAGE.format(stylesheets=stylesheets, scripts=scripts, endpoint=js_string(endpoint))


def asset_routes() -> list[BaseRoute]:
    """Routes serving the vendored GraphiQL files under :data:`ASSET_PATH`."""
    return _FILES.routes

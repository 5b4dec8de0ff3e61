"""Browser assets shipped inside the package (GraphiQL, the explorer): served
from the installed ``memexd.server`` package on the same origin, each page
asking for a file with a token of its content, so nothing comes from a CDN
and a new release reaches browsers at once."""

from __future__ import annotations

import hashlib
import json
import os
from functools import cached_property
from importlib.resources import files
from typing import Final

from starlette.responses import Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

__all__ = ["AssetFolder", "js_string"]

_PACKAGE: Final = "memexd.server"
# Files are asked for with ?v=<content hash>, so they may be cached for a while.
_CACHE_CONTROL: Final = "public, max-age=604800"


class AssetFolder:
    """A folder under ``memexd/server/static`` served under ``path``."""

    def __init__(self, folder: str, path: str) -> None:
        self.folder = folder
        self.path = path
        self._urls: dict[str, str] = {}

    def read(self, name: str) -> bytes:
        return (
            files(_PACKAGE)
            .joinpath("static", *self.folder.split("/"), *name.split("/"))
            .read_bytes()
        )

    def url(self, name: str) -> str:
        """Same-origin URL of one file, with a token that changes with its content."""
        if name not in self._urls:
            digest = hashlib.sha256(self.read(name)).hexdigest()[:12]
            self._urls[name] = f"{self.path}/{name}?v={digest}"
        return self._urls[name]

    @cached_property
    def routes(self) -> list[BaseRoute]:
        """The route serving the folder. The files are found in the installed
        package, so this fails at once (``AssertionError`` from Starlette) if a
        build left the folder out."""
        assets = _Assets(packages=[(_PACKAGE, f"static/{self.folder}")])
        return [Mount(self.path, app=assets, name=f"{self.folder}-assets")]


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


def js_string(value: str) -> str:
    """A JavaScript string literal that is safe inside an HTML ``<script>`` element."""
    literal = json.dumps(value)  # ASCII only, so U+2028/U+2029 arrive escaped too
    return literal.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")

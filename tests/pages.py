"""Reading a served page as a browser would: the URLs it makes the browser
load, whether they stay on the origin, and a vendored folder's VERSIONS.txt."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from importlib.resources.abc import Traversable
from urllib.parse import urlsplit

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


def listed_versions(folder: Traversable) -> dict[str, tuple[str, str, str]]:
    """A vendored folder's VERSIONS.txt: file -> (package@version, licence file, sha256)."""
    rows: dict[str, tuple[str, str, str]] = {}
    for line in folder.joinpath("VERSIONS.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, package, licence, digest = line.split()
            rows[name] = (package, licence, digest)
    return rows

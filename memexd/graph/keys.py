"""Property names a FalkorDB graph learns before any statement runs.

FalkorDB numbers property names in the order it meets them, and its
replicas number them as the writes they receive name them. A write that
changes nothing is not replicated, yet the primary may have numbered a name
it planned (a ``MERGE`` with a property map that matched no row: migration
0006 on an empty graph), and from then on replicas attached at the time
read every later property under the wrong name (seen: an item's
``retracted`` holding its content). So before migrating, memexd names
every property its statements use, in one replicated write (a replica that
joins later copies the primary's numbering whole).
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from importlib.abc import Traversable

__all__ = ["property_names"]

#: ``x.name``, ``x.`a.b```, and ``{name: …`` / ``, name: …`` in a map.
_NAMES = re.compile(
    r"(?<![\w$])[A-Za-z_]\w*\.(?:`([^`]+)`|([A-Za-z_]\w*))|[{,]\s*([A-Za-z_]\w*)\s*:"
)


@cache
def property_names() -> tuple[str, ...]:
    """Every name that may be a property in memexd's Cypher (a few that
    are not cost a name each, nothing more)."""
    found: set[str] = set()
    for package in ("memexd.cypher", "memexd.migrations"):
        for source in _cypher_files(resources.files(package)):
            text = source.read_text(encoding="utf-8")
            found.update(name for match in _NAMES.findall(text) for name in match if name)
    return tuple(sorted(found))


def _cypher_files(folder: Traversable) -> list[Traversable]:
    files = []
    for entry in folder.iterdir():
        if entry.is_dir():
            files += _cypher_files(entry)
        elif entry.name.endswith(".cypher"):
            files.append(entry)
    return files

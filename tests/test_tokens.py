"""Every label and relationship type memexd's statements name exists in a
freshly migrated FalkorDB graph before any command runs (migration 0016):
FalkorDB resolves them when it plans a statement, and a write guard planned
before its type existed sees nothing of that type."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memexd.graph.falkordb import FalkorStore
from memexd.types import GraphStore

pytestmark = pytest.mark.engines("falkordb")

ROOT = Path(__file__).resolve().parent.parent
_COMMENT = re.compile(r"//[^\n]*")
_TYPES = re.compile(r"\[\w*:([A-Z_|:]+)")
_LABELS = re.compile(r"\(\w*((?::[A-Z]\w*)+)")


def _named() -> tuple[set[str], set[str]]:
    """The labels and relationship types written in the Cypher files."""
    labels: set[str] = set()
    types = {"RELATED"}  # the placeholder for an edge's kind (edge_create)
    for path in (ROOT / "cypher").rglob("*.cypher"):
        text = _COMMENT.sub("", path.read_text(encoding="utf-8"))
        for found in _TYPES.findall(text):
            types.update(t for t in re.split(r"[|:]", found) if t)
        for found in _LABELS.findall(text):
            labels.update(t for t in found.split(":") if t)
    return labels, types


def test_the_files_name_what_the_model_has() -> None:
    labels, types = _named()
    # the parse finds the model's core (a regex that found nothing would pass below)
    assert {"Item", "Event", "Counter", "EdgeKey", "Job"} <= labels
    assert {"PARENT", "ALIAS", "CONTRADICTS", "DISCOVERED_FROM"} <= types


async def test_a_migrated_graph_knows_every_name_before_any_write(store: GraphStore) -> None:
    assert isinstance(store, FalkorStore)
    labels, types = _named()
    known_labels = {r["label"] for r in await store.read("CALL db.labels()", {})}
    known_types = {
        r["relationshipType"] for r in await store.read("CALL db.relationshipTypes()", {})
    }
    assert labels - known_labels == set()
    assert types - known_types == set()
    # and nothing of the registration is left behind
    left = await store.read("MATCH (n:Item:Event:Job) RETURN count(n) AS n", {})
    assert left == [{"n": 0}]

"""The exported SDL is current, and it honours the contract."""

from __future__ import annotations

import re
from pathlib import Path

from graphql import build_schema
from graphql.utilities import BreakingChangeType, find_breaking_changes
from memexd.schema.build import sdl

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT.parent / "shared" / "contract.graphql"
CONTRACT_COPY = ROOT / "tests" / "contract.graphql"
_REMOVED = {BreakingChangeType.TYPE_REMOVED, BreakingChangeType.FIELD_REMOVED}


def contract_text() -> str:
    """The shared contract when it sits beside the checkout, else our copy of it."""
    source = CONTRACT if CONTRACT.is_file() else CONTRACT_COPY
    return source.read_text()


def test_exported_sdl_is_current() -> None:
    exported = (ROOT / "schema" / "schema.graphql").read_text()
    assert exported == sdl(), "stale: run `memexd export-schema --output schema/schema.graphql`"


def test_contract_copy_matches_the_shared_contract() -> None:
    if CONTRACT.is_file():
        assert CONTRACT_COPY.read_text() == CONTRACT.read_text()


def test_schema_honours_the_contract() -> None:
    changes = find_breaking_changes(build_schema(contract_text()), build_schema(sdl()))
    conflicts = [c.description for c in changes if c.type not in _REMOVED]
    assert conflicts == [], "exported schema conflicts with the contract"
    missing = sorted(_coordinate(c.description) for c in changes if c.type in _REMOVED)
    pending = sorted(
        line.strip()
        for line in (ROOT / "tests" / "contract_pending.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    )
    assert missing == pending, "update tests/contract_pending.txt to what is really missing"


def _coordinate(description: str) -> str:
    field = re.match(r"Field (\S+) was removed", description)
    if field:
        return field.group(1)
    kind = re.match(r"(\S+) was removed", description)
    assert kind, description
    return kind.group(1)

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


def test_every_schema_element_is_described() -> None:
    """GraphiQL's docs pane is the API reference: every type, field, argument
    and enum value of ours says what it is."""
    schema = build_schema(sdl())
    missing = []
    for name, kind in schema.type_map.items():
        if name.startswith("__"):
            continue
        if not kind.description:
            missing.append(name)
        for field_name, field in getattr(kind, "fields", {}).items():
            if not field.description:
                missing.append(f"{name}.{field_name}")
            for arg_name, arg in getattr(field, "args", {}).items():
                if not arg.description:
                    missing.append(f"{name}.{field_name}({arg_name})")
        for value_name, value in getattr(kind, "values", {}).items():
            if not value.description:
                missing.append(f"{name}.{value_name}")
    assert missing == []
    assert len(schema.type_map) > 30

"""Settings, read once: flags > environment > ``.env`` file > defaults.

Like ``starlette.config``: every value is looked up by its ``MEMEXD_*`` name
and cast; a bad value fails at start-up with the variable's name.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["Settings", "load_settings"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8700
    data_dir: Path = Path("memexd-data")
    #: ``None`` starts the embedded FalkorDB; else ``falkor://``, ``bolt://``, ``neo4j://``.
    graph_uri: str | None = None
    graph_name: str = "memexd"
    graph_user: str | None = None
    graph_password: str | None = field(default=None, repr=False)
    neo4j_database: str | None = None
    #: Embedded engine: ``everysec`` (default) or ``always`` fsync of the AOF.
    fsync: str = "everysec"
    query_timeout_ms: int = 10_000
    query_memory_mb: int = 1024
    max_body_bytes: int = 4 * 1024 * 1024
    max_query_depth: int = 12
    max_aliases: int = 30
    max_tokens: int = 20_000
    max_batch: int = 5_000
    max_list: int = 1_000
    max_page: int = 10_000
    max_content_bytes: int = 256 * 1024
    traversal_max_depth: int = 10_000
    traversal_max_nodes: int = 200_000
    graphiql: bool = True
    log_level: str = "info"
    #: One log line per request; off by default (it costs ~5% of a point read).
    access_log: bool = False


def _bool(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ValueError(f"not a boolean: {value!r}")


def _optional(value: str) -> str | None:
    return value or None


_CASTS: dict[str, Callable[[str], Any]] = {
    "int": int,
    "bool": _bool,
    "Path": Path,
    "str": str,
    "str | None": _optional,
}


def _read_env_file(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    values: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        values[key.strip()] = value.strip().strip("\"'")
    return values


def load_settings(
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    env_file: Path | None = Path(".env"),
) -> Settings:
    """Build :class:`Settings` from ``.env``, the environment, then ``overrides``."""
    source = _read_env_file(env_file) if env_file else {}
    source.update(os.environ if environ is None else environ)
    values: dict[str, Any] = {}
    for f in fields(Settings):
        raw = source.get(f"MEMEXD_{f.name.upper()}")
        if raw is None:
            continue
        try:
            values[f.name] = _CASTS[str(f.type)](raw)
        except ValueError as exc:
            raise ValueError(f"MEMEXD_{f.name.upper()}: {exc}") from exc
    settings = replace(Settings(), **values)
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    return replace(settings, **given)

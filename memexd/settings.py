"""Settings, read once: flags > environment > ``.env`` file > defaults.

Every setting is ``MEMEXD_`` + its name in upper case; each value is checked
(pydantic-settings) and a bad one fails at start-up with one line naming the
variable. Secrets (``graph_password``, URIs with credentials) are never
printed, not even in error messages.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, FilePath, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from memexd.errors import SettingsError

__all__ = ["GRAPH_SCHEMES", "SENTINEL_SCHEMES", "TLS_SCHEMES", "Settings", "load_settings"]

#: URI schemes of a FalkorDB behind Sentinels (memexd.graph.sentinel).
SENTINEL_SCHEMES = frozenset(
    {"redis+sentinel", "falkordb+sentinel", "rediss+sentinel", "falkors+sentinel"}
)
#: URI schemes that speak TLS to a FalkorDB (memexd.graph.tls).
TLS_SCHEMES = frozenset({"rediss", "falkors", "rediss+sentinel", "falkors+sentinel"})

#: URI schemes of the engines memexd can use, by backend.
GRAPH_SCHEMES: Mapping[str, frozenset[str]] = {
    "falkordb": frozenset({"falkor", "falkordb", "redis", *TLS_SCHEMES, *SENTINEL_SCHEMES}),
    "neo4j": frozenset({"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"}),
}
_SECRET = frozenset({"graph_password", "graph_uri", "jwt_secret"})

Positive = Annotated[int, Field(ge=1)]
Seconds = Annotated[float, Field(gt=0, le=3600)]


class Settings(BaseSettings):
    """Every setting, with its default (the README's table lists them all)."""

    model_config = SettingsConfigDict(
        env_prefix="MEMEXD_", env_file=".env", extra="ignore", frozen=True, validate_default=True
    )

    # where it listens and where it keeps data
    host: str = Field("127.0.0.1", min_length=1)
    port: int = Field(8700, ge=1, le=65535)
    #: processes serving the port: one per usable core by default (README,
    #: "Running in production")
    workers: int = Field(default_factory=lambda: min(len(os.sched_getaffinity(0)), 16),
                         ge=1, le=64)  # fmt: skip
    data_dir: Path = Path("memexd-data")
    # the graph engine
    graph_uri: str | None = None
    graph_name: str = Field("memexd", pattern=r"^[A-Za-z0-9_-]{1,64}$")
    graph_user: str | None = None
    graph_password: SecretStr | None = None
    #: TLS to an external FalkorDB (rediss://, rediss+sentinel://): the CA that
    #: signed the engine's certificate (default: the system's CAs), and memexd's
    #: own certificate and key, for engines that ask for one
    #: (docs/high-availability.md, "TLS")
    graph_tls_ca: FilePath | None = None
    graph_tls_cert: FilePath | None = None
    graph_tls_key: FilePath | None = None
    neo4j_database: str | None = None
    #: when a write is acknowledged (README, "Durability"): "disk", once the
    #: engine's append-only file has it on disk (FalkorDB's WAITAOF); or
    #: "engine", once the engine answers (the last writes before the engine
    #: or the machine dies may be lost). Neo4j commits to disk either way.
    write_ack: Literal["disk", "engine"] = "disk"
    #: replicas that must hold a write before it is acknowledged (on their
    #: disk too under write_ack disk): FalkorDB with replicas only
    #: (docs/high-availability.md)
    write_replicas: int = Field(0, ge=0, le=16)
    #: where read-only statements go: the primary, or its replicas (FalkorDB
    #: behind Sentinels only; reads bring back the writes' bookmarks)
    read_from: Literal["primary", "replicas"] = "primary"
    #: the embedded engine's fsync: by default "always" under write_ack disk
    #: (the disk acknowledgement waits for no timer), "everysec" under engine
    fsync: Literal["everysec", "always"] | None = None
    engine_server: Path | None = None
    engine_module: Path | None = None
    engine_restart_max_s: Seconds = 5.0
    #: how long the embedded engine may take to load its files at a start
    engine_start_timeout_s: Seconds = 600.0
    #: how long the embedded engine may leave a ping unanswered before it is
    #: killed and restarted (a hung engine answers nothing, not even SIGTERM)
    engine_hang_s: Seconds = 30.0
    query_timeout_ms: int = Field(10_000, ge=100, le=3_600_000)
    query_memory_mb: int = Field(1024, ge=16)
    #: queries in flight to the engine per process; the rest wait in arrival
    #: order (a longer queue inside the engine only makes the tail unfair)
    pool_size: int = Field(16, ge=1, le=10_000)
    pool_wait_ms: int = Field(5_000, ge=0, le=600_000)
    # requests
    max_body_bytes: Positive = 4 * 1024 * 1024
    #: POST /items streams: it holds one batch, and the results the client has
    #: not read yet (about a seventh of what it sent)
    max_ingest_bytes: Positive = 256 * 1024 * 1024
    max_query_depth: Positive = 12
    max_aliases: Positive = 30
    max_tokens: Positive = 10_000
    max_fields: Positive = 2_000
    max_cost: Positive = 500_000
    max_batch: Positive = 5_000
    max_list: Positive = 1_000
    max_page: Positive = 10_000
    max_offset: int = Field(100_000, ge=0)
    max_content_bytes: Positive = 256 * 1024
    max_filter_depth: Positive = 8
    max_filter_terms: Positive = 128
    traversal_max_depth: Positive = 10_000
    traversal_max_nodes: Positive = 20_000
    max_concurrent_walks: Positive = 4
    # connections
    header_timeout_s: Seconds = 10.0
    body_timeout_s: Seconds = 30.0
    keep_alive_s: Seconds = 5.0
    max_connections: Positive = 1_000
    # the live feed (docs/feed.md)
    feed_buffer: int = Field(500, ge=2, le=100_000)
    feed_max_lag: Positive = 100_000
    feed_poll_s: Seconds = 0.1
    feed_heartbeat_s: Seconds = 15.0
    feed_drain_s: Seconds = 5.0
    feed_max_subscriptions: int = Field(100, ge=1, le=10_000)
    # access control (README: Access control)
    env: Literal["development", "production"] = "development"
    allow_anonymous: bool = False
    keys_file: Path | None = None
    jwt_secret: SecretStr | None = None
    jwt_public_key_file: Path | None = None
    jwt_jwks_file: Path | None = None
    jwt_issuer: str | None = None
    jwt_audience: str | None = None
    jwt_grants_claim: str = Field("memexd_grants", min_length=1)
    jwt_leeway_s: float = Field(0.0, ge=0, le=300)
    cors_origins: list[str] = Field(default_factory=list)
    # maintenance jobs (README, "Maintenance")
    #: jobs one process runs at once (each in batches of jobs_batch items)
    jobs_concurrency: int = Field(1, ge=0, le=16)
    jobs_batch: int = Field(250, ge=1, le=10_000)
    #: after each batch a job sleeps this many times as long as the batch
    #: took: callers' reads and writes get the engine in between (README,
    #: "Maintenance": point reads while a job runs)
    jobs_yield: float = Field(1.0, ge=0, le=100)
    #: how often a process looks for queued jobs and due schedules
    jobs_poll_s: Seconds = 1.0
    #: a running job's lease: a process renews it while it runs; one whose
    #: lease lapsed (its process died) is marked FAILED by any other
    jobs_lease_s: Seconds = 15.0
    #: queued jobs at most (runJob past it: RESOURCE_EXHAUSTED)
    jobs_max_queued: int = Field(100, ge=1, le=10_000)
    # the rest
    graphiql: bool = True
    #: the full-text index for text search and recall (memory per item: README, "Text search")
    text_search: bool = True
    #: the embedding model recall uses, or off (README, "Recall")
    embedding: Literal["e5-small", "off"] = "e5-small"
    #: the decay score's half-life (SPEC §11; README, "Lifecycle"): 30 days
    decay_half_life_ms: float = Field(30 * 86_400_000.0, gt=0, le=1e15)
    #: serve the Apollo Federation 2 subgraph schema (README, "memexd as a subgraph")
    federation: bool = False
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "info"
    access_log: bool = False

    @field_validator("fsync")
    @classmethod
    def _ack_needs_fsync(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value == "everysec" and info.data.get("write_ack") == "disk":
            raise ValueError(
                "MEMEXD_WRITE_ACK=disk needs MEMEXD_FSYNC=always (under everysec each write "
                "would wait up to a second for the next fsync); or set MEMEXD_WRITE_ACK=engine"
            )
        return value

    @field_validator("write_replicas")
    @classmethod
    def _replicas_need_falkordb(cls, value: int, info: ValidationInfo) -> int:
        if value and _scheme(info) not in GRAPH_SCHEMES["falkordb"]:
            raise ValueError(
                "needs a FalkorDB with replicas (MEMEXD_GRAPH_URI=redis://… or "
                "redis+sentinel://…): the embedded engine has none, and memexd cannot use "
                "Neo4j's clustering"
            )
        return value

    @field_validator("graph_tls_ca", "graph_tls_cert", "graph_tls_key")
    @classmethod
    def _tls_needs_a_tls_uri(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        if value is not None and _scheme(info) not in TLS_SCHEMES:
            raise ValueError(
                "needs a FalkorDB reached over TLS (MEMEXD_GRAPH_URI=rediss://… or "
                "rediss+sentinel://…); for Neo4j use bolt+s:// or neo4j+s://"
            )
        return value

    @field_validator("graph_tls_key")
    @classmethod
    def _key_goes_with_a_cert(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        if value is not None and info.data.get("graph_tls_cert") is None:
            raise ValueError("a key without its certificate: set MEMEXD_GRAPH_TLS_CERT too")
        return value

    @field_validator("read_from")
    @classmethod
    def _replica_reads_need_sentinels(cls, value: str, info: ValidationInfo) -> str:
        if value == "replicas" and _scheme(info) not in SENTINEL_SCHEMES:
            raise ValueError(
                "replicas needs a FalkorDB behind Sentinels (MEMEXD_GRAPH_URI=redis+sentinel://…), "
                "which say where the replicas are"
            )
        return value

    @property
    def engine_fsync(self) -> Literal["everysec", "always"]:
        """The embedded engine's fsync, as set or as the acknowledgement needs."""
        if self.fsync is not None:
            return self.fsync
        return "always" if self.write_ack == "disk" else "everysec"

    @field_validator("log_level", "env", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value

    @field_validator(
        "graph_uri",
        "graph_user",
        "graph_tls_ca",
        "graph_tls_cert",
        "graph_tls_key",
        "neo4j_database",
        "jwt_secret",
        "jwt_issuer",
        "jwt_audience",
        mode="before",
    )
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        return None if value == "" else value

    @field_validator("graph_uri")
    @classmethod
    def _known_scheme(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            parts = urlsplit(value)
            if parts.scheme not in SENTINEL_SCHEMES:  # whose netloc lists several hosts
                _ = parts.port  # raises on a port that is not a number
        except ValueError as exc:
            raise ValueError(f"not a URI: {exc}") from None
        known = sorted(s for schemes in GRAPH_SCHEMES.values() for s in schemes)
        if parts.scheme not in known:
            raise ValueError(f"unsupported scheme {parts.scheme!r}; use one of {', '.join(known)}")
        if parts.scheme in SENTINEL_SCHEMES:
            from memexd.graph.sentinel import parse  # the graph package: only when needed

            parse(value)  # its ValueError says what is wrong
            return value
        if not parts.hostname:
            raise ValueError("no host")
        return value

    @property
    def backend(self) -> str:
        """``falkordb`` (embedded or external) or ``neo4j``."""
        if self.graph_uri is None:
            return "falkordb"
        scheme = urlsplit(self.graph_uri).scheme
        return next(name for name, schemes in GRAPH_SCHEMES.items() if scheme in schemes)

    @property
    def keys_path(self) -> Path:
        """The API key file."""
        return self.keys_file or self.data_dir / "keys.json"

    @property
    def production(self) -> bool:
        return self.env == "production"

    @property
    def ide(self) -> bool:
        """GraphiQL is served in development only."""
        return self.graphiql and not self.production

    def password(self) -> str | None:
        return None if self.graph_password is None else self.graph_password.get_secret_value()


def _scheme(info: ValidationInfo) -> str:
    """The scheme of the graph URI validated so far ("" for the embedded engine)."""
    uri = info.data.get("graph_uri")
    return urlsplit(uri).scheme if uri else ""


def load_settings(
    overrides: Mapping[str, Any] | None = None, *, env_file: Path | None = Path(".env")
) -> Settings:
    """Settings from the environment and ``env_file``, then ``overrides`` (flags;
    ``None`` values are ignored). Raises :class:`SettingsError` with one line
    per bad value."""
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    try:
        return Settings(_env_file=env_file, **given)
    except ValidationError as exc:
        raise SettingsError("; ".join(_describe(e) for e in exc.errors())) from None


def _describe(error: Any) -> str:
    name = str(error["loc"][0]) if error["loc"] else "settings"
    message = str(error["msg"]).removeprefix("Value error, ")
    shown = "" if name in _SECRET else f" (got {error.get('input')!r})"
    return f"MEMEXD_{name.upper()}: {message}{shown}"

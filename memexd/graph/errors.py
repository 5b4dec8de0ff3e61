"""Engine errors mapped to memexd errors: the only place that knows both."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

import neo4j.exceptions as neo
import redis.exceptions as redis_errors

from memexd.errors import (
    BadUserInput,
    Conflict,
    ConstraintViolation,
    MemexError,
    ResourceExhausted,
    SchemaExists,
    SettingsError,
    StorageError,
    StorageUnavailable,
)

__all__ = [
    "ConnectionLost",
    "EngineUnreachable",
    "MissingGraph",
    "NotOnDisk",
    "NotReplicated",
    "falkordb_errors",
    "neo4j_errors",
]

log = logging.getLogger("memexd.graph")


class MissingGraph(StorageError):
    """FalkorDB: a read-only query on a graph nobody has written yet."""


class EngineUnreachable(StorageUnavailable):
    """No connection could be made: nothing was sent, so sending again is safe."""


class ConnectionLost(StorageUnavailable):
    """The connection broke after the query was sent: its outcome is unknown."""


class NotOnDisk(StorageUnavailable):
    """The engine made a write but did not confirm in time that its log on
    disk holds it: whether it survives the engine's death is unknown."""


class NotReplicated(StorageUnavailable):
    """The primary made a write but fewer replicas than required confirmed it
    in time (``MEMEXD_WRITE_REPLICAS``): whether it survives a failover is
    unknown."""


_FALKOR_EXHAUSTED = ("timed out", "timeout", "mem consumption exceeded", "memory capacity")


@contextmanager
def falkordb_errors() -> Iterator[None]:
    try:
        yield
    except MemexError:
        raise
    except redis_errors.ResponseError as exc:
        text = str(exc)
        lowered = text.lower()
        if any(marker in lowered for marker in _FALKOR_EXHAUSTED):
            raise ResourceExhausted("the query exceeded the engine's time or memory limit") from exc
        if "empty key" in lowered:
            raise MissingGraph(text) from exc
        if "already indexed" in lowered or "already exists" in lowered:
            raise SchemaExists(text) from exc
        if "constraint violation" in lowered:
            raise ConstraintViolation(text) from exc
        if "appendonly is disabled" in lowered:  # met by the migrations, at start-up
            raise SettingsError(
                "MEMEXD_WRITE_ACK=disk: the graph engine keeps no append-only file, so no "
                "write can be confirmed on disk; run it with appendonly yes (and appendfsync "
                "always), or set MEMEXD_WRITE_ACK=engine"
            ) from exc
        log.error("falkordb rejected a query: %s", text)
        raise StorageError("graph engine error") from exc
    except (redis_errors.ConnectionError, redis_errors.TimeoutError, OSError) as exc:
        raise _unavailable(exc) from exc
    except redis_errors.RedisError as exc:
        log.error("falkordb client error: %s", exc)
        raise StorageError("graph engine error") from exc


def _unavailable(exc: Exception) -> MemexError:
    text = str(exc)
    if "connecting" in text or not isinstance(exc, redis_errors.RedisError):
        return EngineUnreachable("the graph engine is unavailable; try again")
    if isinstance(exc, redis_errors.TimeoutError):
        return ResourceExhausted("the graph engine did not answer in time")
    return ConnectionLost(
        "the connection to the graph engine broke; the request may or may not have taken effect"
    )


#: Neo4j status codes (parts of them) and what they are to memexd's callers.
_NEO4J_EXHAUSTED = ("TransactionTimedOut", "MemoryPoolOutOfMemory", "MemoryLimitExceeded")
_NEO4J_CONFLICT = ("DeadlockDetected", "LockClientStopped")
_NEO4J_STOPPED = ("LockClientStopped", "Transaction.Terminated")


@contextmanager
def neo4j_errors(timeout_s: float | None = None) -> Iterator[None]:
    """Neo4j's errors as memexd's; ``timeout_s``: the transaction timeout of
    what runs inside, if any."""
    started = time.monotonic()
    try:
        yield
    except MemexError:
        raise
    except neo.ConstraintError as exc:
        raise ConstraintViolation(str(exc.message)) from exc
    except neo.Neo4jError as exc:
        # The engine ends a transaction that outlives its timeout; one caught
        # taking or holding a lock says LockClientStopped (or Terminated),
        # not TransactionTimedOut: still the time limit, not a conflict.
        late = timeout_s is not None and time.monotonic() - started >= timeout_s
        if late and any(part in (exc.code or "") for part in _NEO4J_STOPPED):
            raise ResourceExhausted("the query exceeded the engine's time limit") from exc
        raise _neo4j_error(exc) from exc
    except (neo.ServiceUnavailable, neo.SessionExpired) as exc:
        if "connect" in str(exc).lower() and not isinstance(exc, neo.IncompleteCommit):
            raise EngineUnreachable("the graph engine is unavailable; try again") from exc
        raise ConnectionLost(
            "the connection to the graph engine broke; the request may or may not have taken effect"
        ) from exc
    except neo.DriverError as exc:
        log.error("neo4j driver error: %s", exc)
        raise StorageError("graph engine error") from exc
    except OSError as exc:
        raise _unavailable(exc) from exc


def _neo4j_error(exc: neo.Neo4jError) -> MemexError:
    code = exc.code or ""
    if "AlreadyExists" in code or "EquivalentSchemaRule" in code:
        return SchemaExists(str(exc.message))
    if any(part in code for part in _NEO4J_EXHAUSTED):
        return ResourceExhausted("the query exceeded the engine's time or memory limit")
    if any(part in code for part in _NEO4J_CONFLICT):
        return Conflict("concurrent writers kept changing what this command read; try again")
    if "InvalidBookmark" in code:
        return BadUserInput("Memexd-Bookmarks: not bookmarks this service gave out")
    if "BookmarkTimeout" in code or code.startswith("Neo.TransientError"):
        return StorageUnavailable("the graph engine is busy or catching up; try again")
    log.error("neo4j rejected a query: %s %s", code, exc.message)
    return StorageError("graph engine error")

"""The memexd exception hierarchy.

Every error a client can see derives from :class:`MemexError` and carries the
``code`` that the GraphQL layer puts in ``extensions.code``::

    MemexError
    ├── NotFound            MEMORY_ / EDGE_ / INTENT_ / TASK_ / JOB_ / SCHEDULE_NOT_FOUND
    ├── Duplicate           DUPLICATE_MEMORY / _EDGE / _INTENT / _TASK
    ├── InvalidTransition   INVALID_INTENT_TRANSITION / INVALID_TASK_TRANSITION
    ├── InvalidTimestamp    INVALID_TIMESTAMP
    ├── BadUserInput        BAD_USER_INPUT (validation, limits)
    ├── Conflict            CONFLICT (concurrent writers kept winning; retry)
    ├── ResourceExhausted   RESOURCE_EXHAUSTED (time, memory, size or cost limits)
    ├── Unauthenticated     UNAUTHENTICATED (credentials missing, unknown, revoked, expired)
    ├── Forbidden           FORBIDDEN (valid credentials, but no grant for this)
    ├── Unsupported         UNSUPPORTED (a feature this server's settings turn off)
    ├── StorageError        engine failures, mapped in ``memexd.graph.errors``
    │   ├── ConstraintViolation (turned into Duplicate* by the services)
    │   ├── SchemaExists        (an index or constraint is already there)
    │   └── StorageUnavailable  UNAVAILABLE (engine down or restarting; retry)
    │       └── Overloaded      UNAVAILABLE, HTTP 503 (every engine connection stayed busy)
    └── StartupError        a one-line reason ``memexd serve`` cannot start
        └── SettingsError       a setting has a bad value

Only ``StorageError`` itself is masked (``INTERNAL``, a fixed message); every
other code comes with a message meant for the client.
"""

from __future__ import annotations

__all__ = [
    "BadUserInput",
    "Conflict",
    "ConstraintViolation",
    "Duplicate",
    "DuplicateEdge",
    "DuplicateIntent",
    "DuplicateMemory",
    "DuplicateTask",
    "EdgeNotFound",
    "Forbidden",
    "IntentNotFound",
    "InvalidIntentTransition",
    "InvalidTaskTransition",
    "InvalidTimestamp",
    "InvalidTransition",
    "JobNotFound",
    "MemexError",
    "MemoryNotFound",
    "NotFound",
    "Overloaded",
    "ResourceExhausted",
    "ScheduleNotFound",
    "SchemaExists",
    "SettingsError",
    "StartupError",
    "StorageError",
    "StorageUnavailable",
    "TaskNotFound",
    "Unauthenticated",
    "Unsupported",
]


class MemexError(Exception):
    """Base of every error memexd reports to clients."""

    code = "INTERNAL"
    #: Whether the message may be shown to clients as is.
    public = True

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(MemexError):
    code = "NOT_FOUND"


class MemoryNotFound(NotFound):
    code = "MEMORY_NOT_FOUND"

    def __init__(self, item_id: str) -> None:
        super().__init__(f"memory item {item_id} not found")
        self.item_id = item_id


class EdgeNotFound(NotFound):
    code = "EDGE_NOT_FOUND"

    def __init__(self, edge_id: str) -> None:
        super().__init__(f"edge {edge_id} not found")
        self.edge_id = edge_id


class IntentNotFound(NotFound):
    code = "INTENT_NOT_FOUND"

    def __init__(self, intent_id: str) -> None:
        super().__init__(f"intent {intent_id} not found")


class TaskNotFound(NotFound):
    code = "TASK_NOT_FOUND"

    def __init__(self, task_id: str) -> None:
        super().__init__(f"task {task_id} not found")


class JobNotFound(NotFound):
    code = "JOB_NOT_FOUND"

    def __init__(self, job_id: str) -> None:
        super().__init__(f"job {job_id} not found")


class ScheduleNotFound(NotFound):
    code = "SCHEDULE_NOT_FOUND"

    def __init__(self, schedule_id: str) -> None:
        super().__init__(f"schedule {schedule_id} not found")


class Duplicate(MemexError):
    code = "DUPLICATE"


class DuplicateMemory(Duplicate):
    code = "DUPLICATE_MEMORY"

    def __init__(self, ids: list[str]) -> None:
        super().__init__(f"memory item already exists: {', '.join(ids)}")
        self.ids = ids


class DuplicateEdge(Duplicate):
    code = "DUPLICATE_EDGE"

    def __init__(self, ids: list[str]) -> None:
        super().__init__(f"edge already exists: {', '.join(ids)}")
        self.ids = ids


class DuplicateIntent(Duplicate):
    code = "DUPLICATE_INTENT"

    def __init__(self, intent_id: str) -> None:
        super().__init__(f"intent already exists: {intent_id}")


class DuplicateTask(Duplicate):
    code = "DUPLICATE_TASK"

    def __init__(self, task_id: str) -> None:
        super().__init__(f"task already exists: {task_id}")


class InvalidTransition(MemexError):
    """A lifecycle command not allowed from the current status."""

    code = "INVALID_TRANSITION"

    def __init__(self, what: str, record_id: str, status: str, target: str) -> None:
        super().__init__(f"invalid {what} transition: {record_id} from {status} to {target}")


class InvalidIntentTransition(InvalidTransition):
    code = "INVALID_INTENT_TRANSITION"


class InvalidTaskTransition(InvalidTransition):
    code = "INVALID_TASK_TRANSITION"


class InvalidTimestamp(MemexError):
    code = "INVALID_TIMESTAMP"


class BadUserInput(MemexError):
    """Input that fails validation or exceeds a configured limit."""

    code = "BAD_USER_INPUT"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field


class Conflict(MemexError):
    """A compare-and-set write lost to concurrent writers too many times."""

    code = "CONFLICT"


class Unauthenticated(MemexError):
    """No usable credentials: missing, malformed, unknown, revoked or expired.
    The message never contains the credential."""

    code = "UNAUTHENTICATED"


class Forbidden(MemexError):
    """The caller is known but holds no grant for what it asked. Only said of
    things the caller can read: an unreadable item is reported missing."""

    code = "FORBIDDEN"

    @classmethod
    def write(cls, scope: str, field: str | None = None) -> Forbidden:
        where = f"{field}: " if field else ""
        return cls(f"{where}no write grant on scope {scope!r}")


class StorageError(MemexError):
    """A failure inside the graph engine. Details never reach clients."""

    code = "INTERNAL"
    public = False


class Unsupported(MemexError):
    """Something this server does not offer: its settings turn it off (text
    search without MEMEXD_TEXT_SEARCH)."""

    code = "UNSUPPORTED"


class ResourceExhausted(MemexError):
    """A time, memory, size or cost limit stopped the request (the engine's
    query timeout and memory cap, traversal and cost limits)."""

    code = "RESOURCE_EXHAUSTED"


class ConstraintViolation(StorageError):
    """A uniqueness constraint rejected a write (a race the pre-check lost)."""


class SchemaExists(StorageError):
    """A migration's index or constraint already exists (re-runs are no-ops)."""


class StorageUnavailable(StorageError):
    """The engine cannot be reached (down, restarting, or every connection busy)."""

    code = "UNAVAILABLE"
    public = True


class Overloaded(StorageUnavailable):
    """Every connection to the engine stayed busy for as long as a request
    may wait (``MEMEXD_POOL_WAIT_MS``): the server has more work than it can
    do. Over HTTP the answer is ``503`` with ``Retry-After``."""


class StartupError(MemexError):
    """Why memexd cannot start, in one line (port in use, data dir locked, …)."""


class SettingsError(StartupError):
    """A setting has a bad value; the message names the variable."""

"""Jobs as records (SPEC §13): their types, statuses, and how a Job node reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from memexd.access.grants import Access
from memexd.types import JSONObject, Row

__all__ = [
    "FINISHED",
    "JOB_TYPES",
    "STATUSES",
    "Job",
    "job_from_row",
    "job_props",
    "job_record",
    "json_text",
]

JOB_TYPES = ("CONSOLIDATE", "DECAY_UPDATE", "CLEANUP", "ARCHIVE_CREATE", "ARCHIVE_RESTORE",
             "PATTERNS_EXTRACT")  # fmt: skip
STATUSES = ("QUEUED", "RUNNING", "COMPLETED", "FAILED", "CANCELLED")
FINISHED = ("COMPLETED", "FAILED", "CANCELLED")


@dataclass(frozen=True, slots=True)
class Job:
    id: str
    type: str
    status: str
    scope_prefix: str | None
    params: JSONObject | None
    dry_run: bool
    author: str
    created_at: int
    started_at: int | None = None
    finished_at: int | None = None
    progress: float | None = None
    result: JSONObject | None = None
    error: str | None = None
    schedule_id: str | None = None
    #: every scope the job may touch: its scope prefix, or else the write
    #: prefixes of whoever queued it (who may see and cancel it: SPEC §13)
    reach: tuple[str, ...] = ()
    #: the grants it runs under: those of whoever queued it, at that time
    read_grants: tuple[str, ...] = ()
    write_grants: tuple[str, ...] = ()
    caller: str = ""
    #: cancelJob asked a running job to stop
    cancel: bool = False
    #: the process running it (host:pid:nonce), while it runs
    owner: str | None = None

    @property
    def access(self) -> Access:
        """The caller's grants the job runs under (no admin right: a job
        never needs one)."""
        return Access(self.caller, self.read_grants, self.write_grants, ())

    @property
    def prefix(self) -> str:
        return self.scope_prefix or ""


def job_from_row(row: Row) -> Job:
    """A Job node as ``@job`` reads it."""
    return Job(
        id=row["id"], type=row["type"], status=row["status"], scope_prefix=row.get("scope_prefix"),
        params=_loads(row.get("params")), dry_run=bool(row.get("dry_run")), author=row["author"],
        created_at=int(row["created_at"]), started_at=_int(row.get("started_at")),
        finished_at=_int(row.get("finished_at")),
        progress=None if row.get("progress") is None else float(row["progress"]),
        result=_loads(row.get("result")), error=row.get("error"),
        schedule_id=row.get("schedule_id"), reach=tuple(row.get("reach") or ()),
        read_grants=tuple(row.get("read_grants") or ()),
        write_grants=tuple(row.get("write_grants") or ()), caller=row.get("caller") or "",
        cancel=bool(row.get("cancel")), owner=row.get("owner"),
    )  # fmt: skip


def job_props(job: Job) -> dict[str, Any]:
    """A new Job node's properties (absent optionals left out)."""
    props: dict[str, Any] = {
        "id": job.id, "type": job.type, "status": job.status, "scope_prefix": job.scope_prefix,
        "params": None if job.params is None else json_text(job.params),
        "dry_run": job.dry_run, "author": job.author, "created_at": job.created_at,
        "schedule_id": job.schedule_id, "reach": list(job.reach),
        "read_grants": list(job.read_grants), "write_grants": list(job.write_grants),
        "caller": job.caller,
    }  # fmt: skip
    return {k: v for k, v in props.items() if v is not None and v != []}


def job_record(job: Job) -> JSONObject:
    """The job as its events carry it (snake_case, as MemEX's records are);
    whose grants it runs under is left out."""
    return {"id": job.id, "type": job.type, "status": job.status,
            "scope_prefix": job.scope_prefix, "params": job.params, "dry_run": job.dry_run,
            "author": job.author, "created_at": job.created_at, "started_at": job.started_at,
            "finished_at": job.finished_at, "progress": job.progress, "result": job.result,
            "error": job.error, "schedule_id": job.schedule_id}  # fmt: skip


def json_text(value: Any) -> str:
    """A job's params or result as its node stores them."""
    return orjson.dumps(value).decode()


def _loads(text: str | None) -> Any:
    return None if text is None else orjson.loads(text)


def _int(value: Any) -> int | None:
    return None if value is None else int(value)

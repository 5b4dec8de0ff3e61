"""``memexd jobs``: maintenance jobs from a shell (README, "Maintenance").

``archive-get`` writes an archive to a file and ``archive-put`` keeps such a
file in another database, where ARCHIVE_RESTORE restores it: how an archive
moves to a fresh instance.

``run`` queues a job and, unless ``--detach``, follows it to its end with a
progress bar, running a job worker for that job alone in this process
meanwhile: the job runs once, here or in a serving process, whichever claims
it first, so the command works with no server running (as a cron entry would
use it), and never takes another job with it. ``list`` prints
the newest jobs; ``watch`` follows one; ``cancel`` cancels one. Like the other
operator commands it opens the graph itself (the data directory, or
``--graph-uri``) with every grant. ``run`` and ``watch`` exit with status 1
when the job ends FAILED or CANCELLED.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from memexd.cli.lifecycle import runner
from memexd.cli.progress import Bar
from memexd.core import Memex
from memexd.errors import BadUserInput, JobNotFound
from memexd.jobs.archives import archive_bytes, store_archive
from memexd.jobs.model import FINISHED, JOB_TYPES, STATUSES, Job, job_record
from memexd.jobs.queue import JobRequest
from memexd.jobs.worker import JobWorker
from memexd.memory.validation import check_uuid

__all__ = ["HANDLERS", "add_parsers"]

#: How often ``watch`` reads the job, in seconds.
POLL = 0.5


def add_parsers(commands: Any) -> list[argparse.ArgumentParser]:
    jobs = commands.add_parser("jobs", help="maintenance jobs: run, list, watch, cancel")
    actions = jobs.add_subparsers(dest="action", required=True)
    run = actions.add_parser("run", help="queue a job and follow it to its end")
    run.add_argument("type", choices=JOB_TYPES, help="what it does")
    run.add_argument("--author", required=True, help="who runs it (on the events it writes)")
    run.add_argument("--scope-prefix", help="only items under this scope prefix")
    run.add_argument("--params", type=json.loads, help="the type's params as a JSON object")
    run.add_argument("--dry-run", action="store_true", help="report only; write nothing")
    run.add_argument("--detach", action="store_true", help="queue it and return its id")
    listing = actions.add_parser("list", help="the newest jobs")
    listing.add_argument("--status", choices=STATUSES, help="only these")
    listing.add_argument("--type", choices=JOB_TYPES, help="only these")
    listing.add_argument("--limit", type=int, default=20, help="at most this many (20)")
    watch = actions.add_parser("watch", help="follow a job to its end")
    watch.add_argument("id", help="the job's id")
    cancel = actions.add_parser("cancel", help="cancel a job")
    cancel.add_argument("id", help="the job's id")
    get = actions.add_parser("archive-get", help="write an archive to a file (gzip)")
    get.add_argument("id", help="the archive's id")
    get.add_argument("--output", required=True, help="the file to write")
    put = actions.add_parser("archive-put", help="keep an archive file here (then restore it)")
    put.add_argument("file", help="a file archive-get wrote")
    put.add_argument("--scope-prefix", help="the scope prefix it holds")
    made = [run, listing, watch, cancel, get, put]
    for parser in made:
        parser.add_argument("--json", action="store_true", help="JSON instead of text")
    for parser in (run, watch):
        parser.add_argument("--progress", action="store_true", help="a progress bar on stderr "
                            "even when it is not a terminal")  # fmt: skip
        parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return made


async def _run(args: argparse.Namespace, memex: Memex) -> str:
    job = await memex.jobs.run(JobRequest(args.type, args.author, args.scope_prefix,
                                          args.params, args.dry_run))  # fmt: skip
    if args.detach:
        return _shown([job], args.json)
    worker = JobWorker(memex, memex.settings, only=job.id)
    worker.start()
    try:
        return await _follow(args, memex, job.id)
    finally:
        await worker.stop()


async def _watch(args: argparse.Namespace, memex: Memex) -> str:
    return await _follow(args, memex, args.id)


async def _follow(args: argparse.Namespace, memex: Memex, job_id: str) -> str:
    job = await _get(memex, job_id)
    with Bar(args, f"{job.type} {job.id[-8:]}", 100) as bar:
        while job.status not in FINISHED:
            await asyncio.sleep(POLL)
            job = await _get(memex, job_id)
            bar.advance(int((job.progress or 0.0) * 100) - bar.done.count)
    args.failed = job.status != "COMPLETED"
    return _shown([job], args.json)


async def _get(memex: Memex, job_id: str) -> Job:
    job = await memex.jobs.get(job_id)
    if job is None:
        raise JobNotFound(job_id)
    return job


async def _list(args: argparse.Namespace, memex: Memex) -> str:
    if not 1 <= args.limit <= memex.limits.max_list:
        raise BadUserInput(f"--limit must be within [1, {memex.limits.max_list}]")
    return _shown(await memex.jobs.list(args.status, args.type, args.limit), args.json)


async def _cancel(args: argparse.Namespace, memex: Memex) -> str:
    return _shown([await memex.jobs.cancel(args.id)], args.json)


async def _archive_get(args: argparse.Namespace, memex: Memex) -> str:
    size = 0
    with open(args.output, "wb") as out:
        async for chunk in archive_bytes(memex.graph, check_uuid(args.id)):
            size += out.write(chunk)
    return json.dumps({"bytes": size}) if args.json else f"{size:,} bytes"


async def _archive_put(args: argparse.Namespace, memex: Memex) -> str:
    with open(args.file, "rb") as source:
        data = source.read()
    archive_id = await store_archive(memex.graph, data, args.scope_prefix)
    return json.dumps({"archiveId": archive_id}) if args.json else archive_id


def _shown(jobs: list[Job], as_json: bool) -> str:
    if as_json:
        return "\n".join(json.dumps(job_record(j)) for j in jobs)
    return "\n".join(_line(j) for j in jobs)


def _line(j: Job) -> str:
    """One job on one line: id, type, status, progress, result or error."""
    progress = "" if j.progress is None else f" {j.progress:.0%}"
    dry = " (dry run)" if j.dry_run else ""
    told = j.error if j.error else ", ".join(f"{k}: {v}" for k, v in (j.result or {}).items())
    return f"{j.id}  {j.type}{dry}  {j.status}{progress}  {told}".rstrip()


def _action(args: argparse.Namespace, memex: Memex) -> Any:
    actions = {"run": _run, "list": _list, "watch": _watch, "cancel": _cancel,
               "archive-get": _archive_get, "archive-put": _archive_put}  # fmt: skip
    return actions[args.action](args, memex)


def _jobs(args: argparse.Namespace, settings: Any) -> int:
    status = runner(_action)(args, settings)
    return 1 if status == 0 and getattr(args, "failed", False) else status


HANDLERS = {"jobs": _jobs}

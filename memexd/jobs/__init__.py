"""Maintenance jobs and schedules (SPEC §13; README, "Maintenance").

:class:`JobQueue` queues, reads and cancels jobs as a caller;
:class:`Schedules` keeps cron schedules; :class:`JobWorker`, one per serving
process, runs queued jobs and fires due schedules, once across replicas.
The job types live one per module (``consolidate``, ``decay``), registered
in :mod:`memexd.jobs.kinds`.
"""

from memexd.jobs.model import Job
from memexd.jobs.queue import JobQueue, JobRequest
from memexd.jobs.schedules import Schedule, ScheduleRequest, Schedules
from memexd.jobs.worker import JobWorker

__all__ = ["Job", "JobQueue", "JobRequest", "JobWorker", "Schedule", "ScheduleRequest",
           "Schedules"]  # fmt: skip

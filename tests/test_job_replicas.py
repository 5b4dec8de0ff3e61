"""Jobs across replicas (SPEC §13): three ``memexd serve`` on one database
run a job once, fire a schedule's tick once, and when the process running a
job is killed (``kill -9``) a survivor marks it FAILED (interrupted), the
batches it completed kept."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from memexd.access.keys import KeyStore
from memexd.graph import Graph
from memexd.graph.open import open_store
from memexd.jobs.run import now_ms
from memexd.settings import Settings
from memexd.types import GraphStore
from tests.engines import Engine
from tests.processes import serve, stop, wait_dead

#: Short leases and polls, and one item a batch: a job takes many batches.
ENV = {"MEMEXD_LOG_LEVEL": "warning", "MEMEXD_JOBS_LEASE_S": "1", "MEMEXD_JOBS_POLL_S": "0.2",
       "MEMEXD_JOBS_BATCH": "1", "MEMEXD_WORKERS": "1"}  # fmt: skip
RUN = 'mutation { runJob(input: {type: DECAY_UPDATE, author: "ops"}) { id } }'
JOB = "query($id: ID!) { job(id: $id) { status progress result error runner } }"
STARTED = '{ events(filter: {types: ["job.started"]}) { payload } }'


@dataclass
class Replicas:
    urls: list[str]
    processes: list[Any]
    key: str

    def call(self, n: int, query: str, **variables: Any) -> dict[str, Any]:
        """Ask replica ``n``, or the next one alive (a test kills one)."""
        for url in self.urls[n:] + self.urls[:n]:
            try:
                response = httpx.post(f"{url}/graphql", json={"query": query,
                                      "variables": variables},
                                      headers={"Authorization": f"Bearer {self.key}"},
                                      timeout=30)  # fmt: skip
                break
            except httpx.ConnectError:
                continue
            except (httpx.ReadError, httpx.RemoteProtocolError):
                # a process killed as it took the connection: a query goes
                # to the next one; a mutation's fate would be unknown
                if query.lstrip().startswith("mutation"):
                    raise
                continue
        body: dict[str, Any] = response.json()
        assert not body.get("errors"), body
        data: dict[str, Any] = body["data"]
        return data

    def load(self, count: int) -> None:
        lines = "\n".join(f'{{"scope": "r/", "kind": "k", "content": {{"n": {n}}}, '
                          '"author": "a", "sourceKind": "o", "authority": 0.5}'
                          for n in range(count))  # fmt: skip
        response = httpx.post(f"{self.urls[0]}/items", content=lines, timeout=120,
                              headers={"Authorization": f"Bearer {self.key}",
                                       "Content-Type": "application/x-ndjson"})  # fmt: skip
        assert response.status_code == 200, response.text

    def wait(self, job_id: str, done: Any, seconds: float = 60.0) -> dict[str, Any]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            found: dict[str, Any] = self.call(1, JOB, id=job_id)["job"]
            if done(found):
                return found
            time.sleep(0.1)
        raise AssertionError(f"job {job_id} never got there: {found}")


@pytest.fixture
def replicas(shared_engine: Engine, tmp_path: Path) -> Iterator[Replicas]:
    keys = tmp_path / "keys.json"
    _, key = KeyStore(keys).create("admin", ["admin:"])
    running = []
    try:
        for n in range(3):
            env = {"MEMEXD_KEYS_FILE": str(keys), **ENV}
            running.append(serve(tmp_path / f"replica-{n}", engine=shared_engine, **env))
        yield Replicas([url for url, _ in running], [p for _, p in running], key)
    finally:
        for _, process in running:
            stop(process)


@pytest.fixture
async def engine_store(shared_engine: Engine) -> AsyncIterator[GraphStore]:
    """The replicas' database, opened by the test itself."""
    env = shared_engine.env()
    settings = Settings(**{k.removeprefix("MEMEXD_").lower(): v for k, v in env.items()})
    store = await open_store(settings)
    yield store
    await store.close()


def test_a_job_runs_once_across_replicas(replicas: Replicas) -> None:
    replicas.load(200)
    job_id = replicas.call(2, RUN)["runJob"]["id"]
    done = replicas.wait(job_id, lambda j: j["status"] not in ("QUEUED", "RUNNING"))
    assert done["status"] == "COMPLETED"
    assert done["result"]["scored"] == 200
    started = [e for e in replicas.call(0, STARTED)["events"]
               if e["payload"]["job"]["id"] == job_id]  # fmt: skip
    assert len(started) == 1


def test_a_killed_runner_leaves_its_job_failed_and_its_batches_kept(
    replicas: Replicas,
) -> None:
    replicas.load(3_000)
    job_id = replicas.call(0, RUN)["runJob"]["id"]
    running = replicas.wait(job_id, lambda j: j["status"] == "RUNNING" and j["progress"] > 0)
    pid = int(running["runner"].split(":")[1])
    os.kill(pid, signal.SIGKILL)
    # until it has exited, its socket may still take a connection and drop it
    assert wait_dead(pid)
    failed = replicas.wait(job_id, lambda j: j["status"] != "RUNNING")
    assert failed["status"] == "FAILED", failed
    assert failed["error"].startswith("interrupted"), failed
    assert 0 < failed["progress"] < 1
    assert failed["result"]["scored"] > 0
    time.sleep(1.5)  # nobody runs it again
    again = replicas.call(2, JOB, id=job_id)["job"]
    assert again["status"] == "FAILED"
    assert again["result"] == failed["result"]
    started = [e for e in replicas.call(1, STARTED)["events"]
               if e["payload"]["job"]["id"] == job_id]  # fmt: skip
    assert len(started) == 1


async def test_a_tick_fires_once_across_replicas(
    replicas: Replicas, engine_store: GraphStore
) -> None:
    made = replicas.call(
        0,
        'mutation { createSchedule(input: {name: "d", cron: "0 0 1 1 *", '
        'job: {type: DECAY_UPDATE, author: "ops", dryRun: true}}) { id } }',
    )
    schedule_id = made["createSchedule"]["id"]
    # a year from now, as far as the replicas know: make it due now
    await Graph(engine_store).store.write(
        "MATCH (s:Schedule {id: $id}) SET s.next_run_at = $t RETURN s.id",
        {"id": schedule_id, "t": now_ms() - 1000})  # fmt: skip
    time.sleep(3)  # every replica polls 15 times
    jobs = replicas.call(1, "{ jobs { id scheduleId status } }")["jobs"]
    assert [j["scheduleId"] for j in jobs] == [schedule_id]
    listed = replicas.call(2, "{ schedules { nextRunAt lastJob { id } } }")["schedules"]
    assert listed[0]["lastJob"]["id"] == jobs[0]["id"]

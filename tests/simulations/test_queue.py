"""The run queue's own rules, over the part's real schema: no run taken twice, the organization's
limit held by every worker together, lost runs taken back or failed, finishing guarded."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from libs.common.db import create_pool, fetch_one, transaction
from libs.contract.parts import SIMULATIONS
from services.simulations import queue, task_queries
from services.simulations.assignments import assignment_for


@pytest.fixture
async def pool(module_database) -> AsyncIterator[Any]:
    """A pool on a database of the module's own: the shared stack's workers would take its runs."""
    async with create_pool(module_database.dsn(SIMULATIONS), SIMULATIONS.schema, 1, 8) as made:
        yield made


async def queued(pool: Any, trials: int, organization_id: str | None = None) -> tuple[str, list[dict[str, Any]]]:
    """`trials` queued runs of a new environment of a new organization (or the one given)."""
    organization_id = organization_id or str(uuid.uuid4())
    async with transaction(pool) as cur:
        task = await task_queries.create_task(
            cur,
            organization_id,
            {
                "name": "t",
                "category": "c",
                "goal": "g",
                "app_id": str(uuid.uuid4()),
                "reference_answer": None,
                "criteria": [{"type": "must_include", "value": "x", "required": True, "weight": 1.0}],
                "step_budget": 3,
                "rerun_on_change": False,
            },
        )
        environment = await task_queries.create_environment(
            cur, organization_id, {"task_id": task["id"], "name": "e", "agent_config": {}}
        )
        row, assignment = await assignment_for(cur, organization_id, environment["id"])
        runs = await queue.enqueue(cur, organization_id, row, assignment, trials, "api")
    return organization_id, runs


async def take_all(pool: Any, worker: str, organization_id: str, limit: int, lease: int = 30) -> list[str]:
    """Every run of the organization `worker` can take now (another organization's are put back)."""
    taken = []
    while True:
        async with transaction(pool) as cur:
            row = await queue.take(cur, worker, limit, lease, [])
            if row is None:
                return taken
            if row["organization_id"] != organization_id:  # another test's leftover: not ours to judge
                await queue.finish(cur, row["id"], worker, row["attempts"], _failed("left over"))
                continue
        taken.append(row["id"])


def _failed(error: str) -> dict[str, Any]:
    return {
        "status": "failed",
        "score": None,
        "passed": None,
        "tokens": 0,
        "cost": 0.0,
        "snapshot": None,
        "metadata": {"error": error},
    }


async def status_of(pool: Any, run_id: str) -> dict[str, Any]:
    async with transaction(pool) as cur:
        row = await fetch_one(cur, "SELECT status, attempts, worker, metadata FROM runs WHERE id = %s", (run_id,))
    assert row is not None
    return row


async def test_workers_taking_at_once_never_take_a_run_twice_nor_pass_the_organizations_limit(pool):
    organization_id, runs = await queued(pool, 6)
    taken = await asyncio.gather(*(take_all(pool, f"w{index}", organization_id, 3) for index in range(4)))
    flat = [run_id for batch in taken for run_id in batch]
    assert len(flat) == len(set(flat)) == 3
    assert set(flat) <= {run["id"] for run in runs}


async def test_one_worker_takes_the_oldest_first(pool):
    organization_id, runs = await queued(pool, 4)
    assert await take_all(pool, "w", organization_id, 2) == [run["id"] for run in runs[:2]]


async def test_a_run_whose_worker_stopped_renewing_is_taken_again_then_failed(pool):
    organization_id, [run] = await queued(pool, 1)
    assert await take_all(pool, "lost", organization_id, 2, lease=0) == [run["id"]]
    async with transaction(pool) as cur:
        assert await queue.reap(cur, max_attempts=2) >= 1
    assert (await status_of(pool, run["id"]))["status"] == "queued"
    assert await take_all(pool, "lost-again", organization_id, 2, lease=0) == [run["id"]]
    async with transaction(pool) as cur:
        await queue.reap(cur, max_attempts=2)
    gone = await status_of(pool, run["id"])
    assert (gone["status"], gone["attempts"], gone["worker"]) == ("failed", 2, None)
    assert "stopped answering 2 times" in gone["metadata"]["error"]


async def test_a_worker_that_lost_its_run_can_neither_renew_nor_finish_it(pool):
    organization_id, [run] = await queued(pool, 1)
    await take_all(pool, "first", organization_id, 2, lease=0)
    async with transaction(pool) as cur:
        await queue.reap(cur, max_attempts=3)
    await take_all(pool, "second", organization_id, 2)
    async with transaction(pool) as cur:
        assert await queue.renew(cur, run["id"], "first", 1, 30) is False
        assert await queue.finish(cur, run["id"], "first", 1, _failed("late")) is False
        assert await queue.renew(cur, run["id"], "second", 2, 30) is True
    assert (await status_of(pool, run["id"]))["status"] == "running"


async def test_a_cancelled_run_is_not_taken_and_its_worker_is_told(pool):
    organization_id, [waiting, running] = await queued(pool, 2)
    [taken] = await take_all(pool, "w", organization_id, 1)
    assert taken == waiting["id"]
    async with transaction(pool) as cur:
        assert await queue.cancel(cur, organization_id, running["id"]) == "queued"
        assert await queue.cancel(cur, organization_id, waiting["id"]) == "running"
        assert await queue.renew(cur, waiting["id"], "w", 1, 30) is False
        assert await queue.cancel(cur, organization_id, waiting["id"]) == "cancelled"
        assert await queue.cancel(cur, str(uuid.uuid4()), running["id"]) is None
    assert await take_all(pool, "w", organization_id, 2) == []


async def test_a_finished_run_announces_its_completion_with_its_score(pool):
    organization_id, [run] = await queued(pool, 1)
    [taken] = await take_all(pool, "w", organization_id, 1)
    result = {
        "status": "completed",
        "score": 0.5,
        "passed": True,
        "tokens": 12,
        "cost": 0.0,
        "snapshot": "b2-x",
        "metadata": {"answer": "yes"},
    }
    async with transaction(pool) as cur:
        assert await queue.finish(cur, taken, "w", 1, result) is True
        event = await fetch_one(cur, "SELECT type, data FROM webhook_outbox WHERE resource_key = %s", (f"run:{taken}",))
    assert event is not None and event["type"] == "simulation.run.completed"
    assert (event["data"]["overallScore"], event["data"]["passed"], event["data"]["status"]) == (0.5, True, "completed")
    assert event["data"]["metadata"]["answer"] == "yes" and event["data"]["id"] == run["id"]

"""A prompt run's cancel and a worker's claim of its tasks at the same moment: both end, in either
order, without a deadlock (PostgreSQL would abort one of them after a second)."""

from __future__ import annotations

import asyncio
import uuid

from libs.common.db import create_pool, cursor, fetch_value, transaction
from libs.contract.parts import ANALYTICS
from services.analytics import run_queries
from tests import conftest
from tests.factories import unique, waiting_on_a_lock


async def test_a_cancel_during_a_claim_waits_for_it_and_ends(database: conftest.TestDatabase):
    organization_id, product_id = str(uuid.uuid4()), str(uuid.uuid4())
    engine = unique("engine")  # no worker asks it
    tasks = [
        {"prompt_id": str(uuid.uuid4()), "prompt_version": 1, "prompt_text": "Q", "topic_id": None, "engine": engine}
        | {"sample": sample}
        for sample in (1, 2)
    ]
    async with create_pool(database.dsn(ANALYTICS), ANALYTICS.schema, 3, 3) as pool:
        async with transaction(pool) as cur:
            run = await run_queries.create_run(cur, organization_id, product_id, "manual", tasks, 2)

        async def cancel() -> dict:
            async with transaction(pool) as cur:
                cancelled = await run_queries.cancel_run(cur, organization_id, str(run["id"]))
            assert cancelled is not None
            return cancelled

        async with transaction(pool) as claim:
            # A claim's two statements, as `claim_tasks` runs them: the tasks locked, then their run.
            await claim.execute("SELECT id FROM run_tasks WHERE run_id = %s FOR UPDATE", (run["id"],))
            cancelling = asyncio.create_task(cancel())
            await waiting_on_a_lock(pool, "UPDATE run_tasks SET status = 'cancelled'")
            await claim.execute(
                "UPDATE prompt_runs SET status = 'running' WHERE id = %s AND status = 'queued'", (run["id"],)
            )
        cancelled = await asyncio.wait_for(cancelling, 5)
        assert cancelled["status"] == "cancelled"
        async with cursor(pool) as cur:
            statuses = await fetch_value(
                cur, "SELECT array_agg(DISTINCT status) FROM run_tasks WHERE run_id = %s", (run["id"],)
            )
        assert statuses == ["cancelled"]

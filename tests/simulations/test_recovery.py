"""A run whose worker died is taken back by a live worker and completed, its steps those of the
attempt that finished: nothing stays `running` without a worker."""

from __future__ import annotations

from libs.common.db import create_pool, fetch_value, transaction
from libs.contract.parts import SIMULATIONS
from services.simulations import queue
from services.simulations.agent.steps import Step
from services.simulations.assignments import assignment_for
from tests.factories import ContentFactory, DomainFactory
from tests.simulations import site as s


async def test_a_run_left_running_by_a_dead_worker_is_run_again_by_a_live_one(
    gateway, database, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    app, _ = await s.product_site(gateway, headers, content, domains, org, product)
    environment = await s.environment(gateway, headers, (await s.task(gateway, headers, app.app["id"]))["id"])
    async with create_pool(database.dsn(SIMULATIONS), SIMULATIONS.schema, 1, 2) as pool:
        async with transaction(pool) as cur:
            # Queued, then left as a worker that took it and died leaves it (a step written, its lease
            # over), in one transaction, so the stack's live worker never sees it queued.
            row, assignment = await assignment_for(cur, org.id, environment["id"])
            [run] = await queue.enqueue(cur, org.id, row, assignment, 1, "api")
            await cur.execute(
                "UPDATE runs SET status = 'running', attempts = 1, worker = 'dead-worker', started_at = now(),"
                " lease_until = now() - interval '1 second' WHERE id = %s",
                (run["id"],),
            )
            await queue.add_step(cur, run["id"], 1, 1, Step("check", "llms_txt"))
        ended = await s.ended(gateway, headers, run["id"], timeout=40)
        async with transaction(pool) as cur:
            attempts = await fetch_value(cur, "SELECT attempts FROM runs WHERE id = %s", (run["id"],))
    assert (ended["status"], ended["passed"], attempts) == ("completed", True, 2)
    steps = await s.steps(gateway, headers, run["id"])
    assert steps[0]["name"] == "llms_txt" and steps[0]["url"] == "/llms.txt"  # the second attempt's, not the dead one's

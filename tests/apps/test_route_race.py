"""Two batches at once: the unique index on (app, path), not a check before the insert, decides."""

from __future__ import annotations

import asyncio
import time

from libs.common.db import cursor, fetch_value, transaction
from tests.apps.support import FakeContent, Tenant, route, routes_of

WAIT_SECONDS = 10.0


async def wait_for_waiting_inserts(pool, count: int) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    async with cursor(pool) as cur:
        while (
            await fetch_value(cur, "SELECT count(*) FROM pg_locks WHERE relation = 'routes'::regclass AND NOT granted")
            < count
        ):
            assert time.monotonic() < deadline, f"{count} inserts never waited on the routes table"
            await asyncio.sleep(0.02)


async def test_two_concurrent_batches_for_one_path_create_exactly_one_route(
    tenant: Tenant, content: FakeContent, apps_pool
):
    app = await tenant.create_app()
    documents = [content.add(tenant.org, tenant.product) for _ in range(2)]
    url = f"{routes_of(app)}/batch"
    async with transaction(apps_pool) as cur:
        # Both batches pass their check (reads are allowed), then both wait here to insert: a real race.
        await cur.execute("LOCK TABLE routes IN SHARE MODE")
        batches = [asyncio.create_task(tenant.post(url, {"routes": [route("/same", doc)]})) for doc in documents]
        await wait_for_waiting_inserts(apps_pool, 2)
    results = await asyncio.gather(*batches)
    assert sorted(status for status, _ in results) == [200, 409]
    winner = next(body for status, body in results if status == 200)
    loser = next(body for status, body in results if status == 409)
    assert loser["message"] == "another request created a route at one of these paths; no route was created"
    entry = loser["details"]["routes"][0]
    assert (entry["action"], entry["issues"]) == ("conflict", ["path_conflict"])
    assert entry["pathConflict"]["id"] == winner["data"]["routes"][0]["id"]
    async with cursor(apps_pool) as cur:
        stored = await fetch_value(cur, "SELECT count(*) FROM routes WHERE app_id = %s", (app["id"],))
    assert stored == 1


async def test_identical_concurrent_batches_all_succeed_as_if_sent_one_after_another(
    tenant: Tenant, content: FakeContent, apps_pool
):
    app = await tenant.create_app()
    document = content.add(tenant.org, tenant.product)
    url = f"{routes_of(app)}/batch"
    async with transaction(apps_pool) as cur:
        await cur.execute("LOCK TABLE routes IN SHARE MODE")  # every batch passes its check, then waits
        batches = [asyncio.create_task(tenant.post(url, {"routes": [route("/same", document)]})) for _ in range(5)]
        await wait_for_waiting_inserts(apps_pool, 5)
    results = await asyncio.gather(*batches)
    assert [status for status, _ in results] == [200] * 5
    assert sorted(body["data"]["createdCount"] for _, body in results) == [0, 0, 0, 0, 1]
    assert len({body["data"]["routes"][0]["id"] for _, body in results}) == 1
    async with cursor(apps_pool) as cur:
        stored = await fetch_value(cur, "SELECT count(*) FROM routes WHERE app_id = %s", (app["id"],))
    assert stored == 1

"""Re-runs of the tasks that ask for them (`rerunOnChange`): a change to what their App publishes,
a document it routes or one of its routes, queues one run of each of their environments."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from libs.common.db import create_pool, fetch_all, fetch_value, transaction
from libs.common.encoding import dumps
from libs.common.redis_client import create_redis
from libs.common.webhook_outbox import event_from_row
from libs.contract.parts import SIMULATIONS
from services.simulations import task_queries
from services.simulations.reruns import TRIGGER, RouteChanges, rerun
from tests.conftest import REDIS_URL, Stack
from tests.factories import ContentFactory, DomainFactory, waiting_on_a_lock
from tests.integration.agent_site import new_site
from tests.integration.support import call
from tests.simulations import site as s

BASE = s.BASE


@pytest.fixture
async def pool(database) -> AsyncIterator[Any]:
    async with create_pool(database.dsn(SIMULATIONS), SIMULATIONS.schema, 1, 8) as made:
        yield made


@pytest.fixture
async def redis() -> AsyncIterator[aioredis.Redis]:
    client = create_redis(REDIS_URL)
    yield client
    await client.aclose()


async def environment_of(pool: Any, organization_id: str, app_id: str, rerun_on_change: bool) -> str:
    """A new environment of a new task visiting `app_id`."""
    async with transaction(pool) as cur:
        task = await task_queries.create_task(
            cur,
            organization_id,
            {
                "name": "t",
                "category": "c",
                "goal": "g",
                "app_id": app_id,
                "reference_answer": None,
                "criteria": [{"type": "must_include", "value": "x", "required": True, "weight": 1.0}],
                "step_budget": 3,
                "rerun_on_change": rerun_on_change,
            },
        )
        environment = await task_queries.create_environment(
            cur, organization_id, {"task_id": task["id"], "name": "e", "agent_config": {}}
        )
    return str(environment["id"])


async def runs_of(pool: Any, environment_id: str) -> list[dict[str, Any]]:
    """The environment's runs, whatever became of them since (another test's worker may take them)."""
    async with transaction(pool) as cur:
        return await fetch_all(
            cur, "SELECT trigger, metadata->>'trigger' AS said FROM runs WHERE environment_id = %s", (environment_id,)
        )


def app_event(event_type: str, organization_id: str, app_id: str) -> dict[bytes | str, bytes]:
    """A stream entry as the apps part's webhook relay publishes it (libs/common/webhook_outbox.py)."""
    resource_id = str(uuid.uuid4())
    kind = event_type.split(".")[1]
    event = event_from_row(
        {
            "id": str(uuid.uuid4()),
            "type": event_type,
            "occurred_at": "2026-11-28T12:00:00+00:00",
            "organization_id": organization_id,
            "resource_key": f"app.{kind}:{resource_id}",
            "data": {
                "id": resource_id,
                "appId": app_id,
                "path": "/pricing",
                "targetType": "document",
                "targetId": str(uuid.uuid4()),
            },
        }
    )
    return {"event": dumps(event)}


async def test_route_changes_queue_one_rerun_of_the_tasks_that_ask_for_it_on_that_app(pool, redis):
    organization_id, app_id, other_app_id = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
    watched = await environment_of(pool, organization_id, app_id, True)
    unwatched = await environment_of(pool, organization_id, app_id, False)
    elsewhere = await environment_of(pool, organization_id, other_app_id, True)
    stream = f"test-{uuid.uuid4().hex[:8]}:events:webhooks:apps"
    changes = RouteChanges(redis, stream, pool)
    await changes.ensure_group()
    try:
        # A route created, retargeted and deleted at once; the other App's domain changes no route.
        for event_type in ("app.route.created", "app.route.updated", "app.route.deleted"):
            await redis.xadd(stream, app_event(event_type, organization_id, app_id))
        await redis.xadd(stream, app_event("app.domain.created", organization_id, other_app_id))
        assert await changes.step() == 4
        assert (await redis.xpending(stream, "simulations"))["pending"] == 0
    finally:
        await redis.delete(stream)

    assert await runs_of(pool, watched) == [{"trigger": TRIGGER, "said": TRIGGER}]
    assert await runs_of(pool, unwatched) == []
    assert await runs_of(pool, elsewhere) == []


async def test_readers_queueing_at_once_queue_one_rerun(pool):
    """The content and the route readers (and every replica's) may queue at the same moment: the one
    that waited for the environment's lock sees the run the other queued meanwhile."""
    organization_id, app_id = str(uuid.uuid4()), str(uuid.uuid4())
    watched = await environment_of(pool, organization_id, app_id, True)

    async with transaction(pool) as cur:
        await cur.execute("SELECT 1 FROM environments WHERE id = %s FOR UPDATE", (watched,))
        readers = [asyncio.create_task(rerun(pool, organization_id, [app_id])) for _ in range(3)]
        # Each reader waits for this transaction (the first) or for the row's lock (the others).
        waiting = (
            "SELECT count(*) FROM pg_locks WHERE NOT granted"
            " AND (relation = 'environments'::regclass OR transactionid::text = pg_current_xact_id()::text)"
        )
        deadline = time.monotonic() + 10
        while await fetch_value(cur, waiting) < len(readers):
            assert time.monotonic() < deadline, "the readers never waited for the environment"
            await asyncio.sleep(0.02)
    queued = await asyncio.gather(*readers)

    assert sorted(queued) == [0, 0, 1]
    assert await runs_of(pool, watched) == [{"trigger": TRIGGER, "said": TRIGGER}]


async def test_a_rerun_during_its_tasks_deletion_waits_and_queues_nothing(pool):
    """A task's deletion locks the task, then its environments; a re-run reader takes them in the
    same order (it locked the environments first and deadlocked with the deletion)."""
    organization_id, app_id = str(uuid.uuid4()), str(uuid.uuid4())
    watched = await environment_of(pool, organization_id, app_id, True)
    async with transaction(pool) as cur:
        task_id = await fetch_value(cur, "SELECT task_id::text FROM environments WHERE id = %s", (watched,))

    async with transaction(pool) as deleting:
        await task_queries.find_task(deleting, organization_id, task_id, lock=True)  # the deletion's first step
        reader = asyncio.create_task(rerun(pool, organization_id, [app_id]))
        await waiting_on_a_lock(pool)
        await task_queries.delete_task(deleting, organization_id, task_id)
    assert await asyncio.wait_for(reader, 5) == 0
    assert await runs_of(pool, watched) == []


async def test_a_route_created_through_the_api_reruns_the_tasks_that_ask_for_it(
    gateway, stack: Stack, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    app, _ = await s.product_site(gateway, headers, content, domains, org, product)
    await s.app_events_read(stack, domains, org)
    watched = await s.environment(
        gateway, headers, (await s.task(gateway, headers, app.app["id"], rerunOnChange=True))["id"]
    )
    unwatched = await s.environment(gateway, headers, (await s.task(gateway, headers, app.app["id"]))["id"])
    status, listed = await call(gateway, "GET", f"{BASE}/runs", headers)
    assert (status, listed["data"]["total"]) == (200, 0)

    support = await content.document(org, product, title="Support", status="published", content="# Support\n\nMail us.")
    [route] = await app.route(support=support)
    [run] = await s.queued_runs(gateway, headers, 1)
    assert (run["environmentId"], run["sandboxId"], run["metadata"]["trigger"]) == (
        watched["id"],
        app.app["id"],
        "content_change",
    )
    assert (await s.ended(gateway, headers, run["id"]))["passed"] is True

    status, _ = await call(gateway, "DELETE", f"/api/v1/apps/{app.app['id']}/routes/{route['id']}", headers)
    assert status == 200
    runs = await s.queued_runs(gateway, headers, 2)
    assert [(r["environmentId"], r["metadata"]["trigger"]) for r in runs] == [(watched["id"], "content_change")] * 2
    await asyncio.sleep(1)
    status, listed = await call(gateway, "GET", f"{BASE}/runs", headers, params={"environmentId": unwatched["id"]})
    assert (status, listed["data"]["total"]) == (200, 0)
    status, listed = await call(gateway, "GET", f"{BASE}/runs", headers)
    assert listed["data"]["total"] == 2


async def test_a_content_change_reruns_the_tasks_that_ask_for_it_on_the_apps_routing_it(
    gateway, stack: Stack, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    app, documents = await s.product_site(gateway, headers, content, domains, org, product)
    # Another App of the organization, routing only a page of its own.
    elsewhere = await new_site(gateway, headers, domains, product, name="Acme Blog")
    own = await content.document(org, product, title="Blog", status="published", content="# Blog\n\nNews.")
    await elsewhere.route(blog=own)
    await s.app_events_read(stack, domains, org)
    watched = await s.environment(
        gateway, headers, (await s.task(gateway, headers, app.app["id"], rerunOnChange=True))["id"]
    )
    unwatched = await s.environment(gateway, headers, (await s.task(gateway, headers, app.app["id"]))["id"])
    other_app = await s.environment(
        gateway, headers, (await s.task(gateway, headers, elsewhere.app["id"], rerunOnChange=True))["id"]
    )

    status, _ = await call(
        gateway,
        "PUT",
        f"/api/v1/content/{documents['security']['id']}",
        headers,
        json={"content": "# Security\n\nSSO is in every plan."},
    )
    assert status == 200
    [run] = await s.queued_runs(gateway, headers, 1)
    assert run["environmentId"] == watched["id"] and run["metadata"]["trigger"] == "content_change"
    assert run["sandboxId"] == app.app["id"]
    assert (await s.ended(gateway, headers, run["id"]))["passed"] is True
    for environment in (unwatched, other_app):
        status, others = await call(
            gateway, "GET", f"{BASE}/runs", headers, params={"environmentId": environment["id"]}
        )
        assert others["data"]["total"] == 0

    # The other App's page changes: its task runs again, the first App's does not.
    status, _ = await call(
        gateway, "PUT", f"/api/v1/content/{own['id']}", headers, json={"content": "# Blog\n\nMore news."}
    )
    assert status == 200
    await s.queued_runs(gateway, headers, 2)
    await asyncio.sleep(1)
    status, listed = await call(gateway, "GET", f"{BASE}/runs", headers)
    assert sorted(run["environmentId"] for run in listed["data"]["runs"]) == sorted([watched["id"], other_app["id"]])

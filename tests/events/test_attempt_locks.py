"""A batch of delivery attempts recorded while its endpoint is being deleted: the batch waits for
the deletion and ends, where taking the delivery before the endpoint deadlocked (PostgreSQL
aborts one of the two after a second)."""

from __future__ import annotations

import asyncio
import time
import uuid

from libs.common.db import create_pool, fetch_one, transaction
from libs.contract.parts import EVENTS
from services.events import queries
from services.events.attempts import Attempt, record_attempts
from tests import conftest
from tests.factories import waiting_on_a_lock


async def test_a_failure_recorded_during_its_endpoints_deletion_waits_and_leaves_the_delivery_given_up(
    database: conftest.TestDatabase,
):
    organization_id = str(uuid.uuid4())
    async with create_pool(database.dsn(EVENTS), EVENTS.schema, 3, 3) as pool:
        async with transaction(pool) as cur:
            endpoint = await queries.create_endpoint(
                cur, organization_id, {"url": "https://hooks.example.com/in", "events": ["*"]}, "whsec_test"
            )
            delivery = await fetch_one(
                cur,
                "INSERT INTO deliveries (endpoint_id, organization_id, event_id, event_type, resource_key, payload)"
                " VALUES (%s, %s, %s, 'app.created', 'app:1', '{}') RETURNING id::text",
                (endpoint["id"], organization_id, str(uuid.uuid4())),
            )
        assert delivery is not None
        failure = Attempt(delivery["id"], str(endpoint["id"]), 1, time.time(), 12, 503, b"", None)

        async def record() -> None:
            async with transaction(pool) as cur:
                await record_attempts(cur, [failure])

        async with transaction(pool) as deleting:
            # A deletion's two statements, as `delete_endpoint` runs them: the endpoint, then its
            # pending deliveries.
            await deleting.execute("UPDATE webhook_endpoints SET deleted_at = now() WHERE id = %s", (endpoint["id"],))
            recording = asyncio.create_task(record())
            await waiting_on_a_lock(pool, "webhook_endpoints")
            await deleting.execute(
                "UPDATE deliveries SET status = 'failed', finished_at = now(), next_attempt_at = NULL"
                " WHERE endpoint_id = %s AND status = 'pending'",
                (endpoint["id"],),
            )
        await asyncio.wait_for(recording, 5)
        async with transaction(pool) as cur:
            stored = await fetch_one(
                cur,
                "SELECT d.status, d.attempts, d.next_attempt_at, e.failing_since IS NOT NULL AS failing,"
                " (SELECT count(*) FROM delivery_attempts a WHERE a.delivery_id = d.id) AS recorded"
                " FROM deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = %s",
                (delivery["id"],),
            )
        assert stored == {"status": "failed", "attempts": 1, "next_attempt_at": None, "failing": True, "recorded": 1}

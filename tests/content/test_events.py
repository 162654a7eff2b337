"""Writes through the API reach the event stream (design.md "Events"), one event per change."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from libs.common.encoding import loads
from libs.common.redis_client import create_redis
from services.content.queries import outbox
from tests.conftest import REDIS_URL
from tests.content.api import Tenant


@pytest.fixture
async def redis() -> AsyncIterator[aioredis.Redis]:
    client = create_redis(REDIS_URL)
    yield client
    await client.aclose()


async def events_of(stack, redis: aioredis.Redis, document_id: str, count: int) -> list[dict]:
    """The document's events on the stream, once there are `count` of them (waits up to five seconds)."""
    stream = stack.environ["REDIS_PREFIX"] + "events:content"
    for _ in range(100):
        entries = await redis.xrange(stream)
        events = [loads(fields[b"event"]) for _, fields in entries]
        found = [event for event in events if event["documentId"] == document_id]
        if len(found) >= count:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"expected {count} events of {document_id}, saw {found}")


async def test_a_created_page_is_announced(stack, redis, tenant: Tenant):
    created = await tenant.create_page("announced")
    [event] = await events_of(stack, redis, created["id"], 1)
    assert event == {
        "id": event["id"],
        "type": outbox.CREATED,
        "organizationId": tenant.org.id,
        "productId": tenant.product["id"],
        "documentId": created["id"],
        "occurredAt": event["occurredAt"],
    }


async def test_each_kind_of_change_is_announced_in_order(stack, redis, tenant: Tenant):
    created = await tenant.create_page("lifecycle")
    document = f"/api/v1/content/{created['id']}"
    await tenant.update_pages({"id": created["id"], "status": "published"})
    await tenant.call("PUT", document, {"content": "new words"})
    await tenant.call("PATCH", document, {"priority": 10})
    await tenant.update_pages({"id": created["id"], "status": "draft"})
    await tenant.delete_pages(created["id"])
    events = await events_of(stack, redis, created["id"], 6)
    assert [event["type"] for event in events] == [
        outbox.CREATED,
        outbox.PUBLISHED,
        outbox.CHANGED,
        outbox.CHANGED,
        outbox.UNPUBLISHED,
        outbox.DELETED,
    ]


async def test_a_write_that_changes_nothing_is_not_announced(stack, redis, tenant: Tenant):
    created = await tenant.create_page("quiet")
    await tenant.call("PUT", f"/api/v1/content/{created['id']}", {"title": "quiet"})
    await tenant.update_pages({"id": created["id"], "title": "loud"})
    events = await events_of(stack, redis, created["id"], 2)
    assert [event["type"] for event in events] == [outbox.CREATED, outbox.CHANGED]


async def test_a_failed_item_is_not_announced(stack, redis, tenant: Tenant):
    first = await tenant.create_page("first")
    second = await tenant.create_page("second")
    answer = await tenant.update_pages({"id": second["id"], "filePath": "/first"}, {"id": first["id"], "title": "T"})
    assert answer.data["failedCount"] == 1
    await events_of(stack, redis, first["id"], 2)
    assert [event["type"] for event in await events_of(stack, redis, second["id"], 1)] == [outbox.CREATED]

"""Product events: each change of a product row is queued with it and published by the gateway's relay."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from libs.common.db import fetch_value, transaction
from libs.common.encoding import loads
from libs.common.events import identity_events_stream
from libs.common.redis_client import create_redis
from tests.conftest import REDIS_URL, Stack
from tests.factories import IdentityFactory, eventually


@pytest.fixture
async def redis() -> AsyncIterator[aioredis.Redis]:
    client = create_redis(REDIS_URL)
    yield client
    await client.aclose()


async def events_of(stack: Stack, redis: aioredis.Redis, product_id: str, count: int) -> list[dict[str, Any]]:
    """The events about the product on the stack's stream, once `count` of them are there."""
    stream = identity_events_stream(stack.environ["REDIS_PREFIX"])
    found: list[dict[str, Any]] = []

    async def arrived() -> bool:
        entries = await redis.xrange(stream)
        found[:] = [event for _, fields in entries if (event := loads(fields[b"event"]))["product"]["id"] == product_id]
        return len(found) >= count

    await eventually(arrived)
    return found


async def test_create_rename_and_delete_are_published_with_the_products_state_in_order(
    stack: Stack, identity: IdentityFactory, redis: aioredis.Redis
):
    org = await identity.organization()
    product = await identity.product(org, "Handbook")
    async with transaction(identity.pool) as cur:
        await cur.execute("UPDATE products SET name = 'Manual' WHERE id = %s", (product["id"],))
    async with transaction(identity.pool) as cur:
        await cur.execute("UPDATE products SET deleted_at = now() WHERE id = %s", (product["id"],))

    events = await events_of(stack, redis, product["id"], 3)
    assert [event["type"] for event in events] == ["product.created", "product.changed", "product.deleted"]
    assert [event["product"]["name"] for event in events] == ["Handbook", "Manual", "Manual"]
    assert all(event["organizationId"] == org.id and event["product"]["slug"] == product["slug"] for event in events)
    assert [event["product"]["deletedAt"] is None for event in events] == [True, True, False]
    versions = [event["version"] for event in events]
    assert versions == sorted(set(versions))


async def test_a_rolled_back_product_queues_no_event(identity: IdentityFactory):
    org = await identity.organization()
    product_id = str(uuid.uuid4())
    with pytest.raises(RuntimeError):
        async with transaction(identity.pool) as cur:
            await cur.execute(
                "INSERT INTO products (id, organization_id, name, slug) VALUES (%s, %s, 'Gone', %s)",
                (product_id, org.id, f"gone-{product_id[:8]}"),
            )
            raise RuntimeError("abandoned")
    async with transaction(identity.pool) as cur:
        assert await fetch_value(cur, "SELECT count(*) FROM product_outbox WHERE product_id = %s", (product_id,)) == 0

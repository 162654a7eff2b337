"""The apps service's own copy of the products, kept from the gateway's product events.

Product names and slugs in apps' answers come from that copy: no request goes back into the
gateway (the gateway has no endpoint for it, tests/gateway/test_edges.py).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from libs.common.db import transaction
from libs.common.encoding import dumps
from libs.common.redis_client import create_redis
from services.apps.products import ProductConsumer
from tests.apps.support import FakeContent, Tenant, route, routes_of
from tests.conftest import REDIS_URL
from tests.factories import AppsProducts, IdentityFactory


async def change_product(identity: IdentityFactory, product_id: str, assignments: str, *params: object) -> None:
    """Change the identity schema's product row, as any writer of it would."""
    async with transaction(identity.pool) as cur:
        await cur.execute(f"UPDATE products SET {assignments}, updated_at = now() WHERE id = %s", (*params, product_id))


async def test_a_renamed_product_is_named_anew_in_resources_and_routes(
    tenant: Tenant, identity: IdentityFactory, apps_products: AppsProducts, content: FakeContent
):
    app = await tenant.create_app_of()
    document = content.add(tenant.org, tenant.product)
    status, body = await tenant.post(f"{routes_of(app)}/batch", {"routes": [route("/guide", document)]})
    assert (status, body["data"]["routes"][0]["product"]) == (200, tenant.product)

    await change_product(
        identity, tenant.product["id"], "name = %s, slug = %s", "Manual", "manual-" + uuid.uuid4().hex[:8]
    )
    renamed = await apps_products.until(tenant.product["id"], lambda row: row is not None and row["name"] == "Manual")
    assert renamed is not None
    expected = {"id": tenant.product["id"], "name": "Manual", "slug": renamed["slug"]}

    status, body = await tenant.get(f"/api/v1/apps/{app['id']}/resources")
    assert (status, [resource["product"] for resource in body["data"]]) == (200, [expected])
    status, body = await tenant.post(f"{routes_of(app)}/import-preview", {"routes": [route("/guide", document)]})
    assert (status, body["data"]["routes"][0]["product"]) == (200, expected)


async def test_a_deleted_product_is_no_longer_named_nor_added(
    tenant: Tenant, identity: IdentityFactory, apps_products: AppsProducts
):
    app = await tenant.create_app_of()
    await change_product(identity, tenant.product["id"], "deleted_at = now()")
    gone = await apps_products.until(
        tenant.product["id"], lambda row: row is not None and row["deleted_at"] is not None
    )
    assert gone is not None

    status, body = await tenant.get(f"/api/v1/apps/{app['id']}/resources")
    assert (status, [resource["product"] for resource in body["data"]]) == (200, [None])
    other_app = await tenant.create_app(name="Blog")
    status, body = await tenant.post(f"/api/v1/apps/{other_app['id']}/resources", {"resourceId": tenant.product["id"]})
    assert (status, body["details"]) == (422, {"resourceId": "No such product in this organization."})


async def test_a_product_the_gateway_checked_is_known_before_its_event(
    tenant: Tenant, identity: IdentityFactory, apps_products: AppsProducts, content: FakeContent
):
    """Route candidates of a product name it as the gateway checked it, and apps keeps that copy
    until the product's event arrives (which then wins)."""
    app = await tenant.create_app_of()
    async with transaction(apps_products.pool) as cur:
        await cur.execute("DELETE FROM products WHERE id = %s", (tenant.product["id"],))
    content.add(tenant.org, tenant.product)
    status, body = await tenant.get(f"/api/v1/apps/{app['id']}/route-candidates", productId=tenant.product["id"])
    assert (status, body["data"]["candidates"][0]["product"]) == (200, tenant.product)
    learnt = await apps_products.row(tenant.product["id"])
    assert learnt is not None
    assert (learnt["name"], learnt["slug"], learnt["version"]) == (tenant.product["name"], tenant.product["slug"], 0)


@pytest.fixture
async def redis() -> AsyncIterator[aioredis.Redis]:
    client = create_redis(REDIS_URL)
    yield client
    await client.aclose()


async def test_the_consumer_keeps_the_newest_version_on_replay_and_out_of_order(
    redis: aioredis.Redis, apps_products: AppsProducts
):
    stream = f"test-{uuid.uuid4().hex[:8]}:events:identity"
    organization_id, product_id = str(uuid.uuid4()), str(uuid.uuid4())

    async def publish(version: int, name: str, deleted_at: str | None = None) -> None:
        product = {"id": product_id, "name": name, "slug": name.lower(), "deletedAt": deleted_at}
        event = {
            "id": str(uuid.uuid4()),
            "type": "product.changed",
            "version": version,
            "organizationId": organization_id,
            "product": product,
            "occurredAt": "2026-01-01T00:00:00Z",
        }
        await redis.xadd(stream, {"event": dumps(event)})

    try:
        await publish(1, "First")
        await publish(3, "Third")
        await publish(2, "Second")  # late: older than what is stored
        await redis.xadd(stream, {"event": b"not json"})
        first = ProductConsumer(redis, stream, apps_products.pool, group="first")
        assert await first.step() == 4
        stored = await apps_products.row(product_id)
        assert stored is not None
        assert (stored["name"], stored["version"], stored["organization_id"]) == ("Third", 3, organization_id)

        replay = ProductConsumer(redis, stream, apps_products.pool, group="replay")  # every event once more
        assert await replay.step() == 4
        assert await apps_products.row(product_id) == stored
        assert (await redis.xpending(stream, "replay"))["pending"] == 0

        await publish(4, "Third", "2026-02-01T00:00:00Z")
        assert await first.step() == 1
        deleted = await apps_products.row(product_id)
        assert deleted is not None and deleted["version"] == 4 and deleted["deleted_at"] is not None
    finally:
        await redis.delete(stream)

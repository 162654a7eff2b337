"""A product created or deleted by a call that has returned is honoured at once by every part.

Two gateways, each in front of its own apps service (one database): the replicas a client may
meet one after the other. Nothing waits for the product's event between the write and the use.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from libs.common.db import cursor, fetch_value
from tests.apps.support import Client, Tenant
from tests.factories import AppsProducts, IdentityFactory

ROUNDS = 200
REFUSED = {"resourceId": "No such product in this organization."}


@pytest.fixture
async def replicas(tenant: Tenant, gateway: Client) -> AsyncIterator[tuple[Tenant, Tenant]]:
    """The tenant calling through the `api` gateway, and through the stack's own gateway."""
    yield tenant, Tenant(gateway, tenant.org, tenant.product, tenant.key)


async def add(tenant: Tenant, app: dict, product_id: str) -> tuple[int, dict]:
    return await tenant.post(f"/api/v1/apps/{app['id']}/resources", {"resourceId": product_id})


async def resources_in(cur, apps: list[dict]) -> int:
    return await fetch_value(
        cur, "SELECT count(*) FROM app_resources WHERE app_id = ANY(%s::uuid[])", ([app["id"] for app in apps],)
    )


async def test_a_product_created_a_moment_ago_can_be_added_at_once(
    replicas: tuple[Tenant, Tenant], identity: IdentityFactory, apps_pool
):
    apps = [await replica.create_app(slug=f"site-{n}") for n, replica in enumerate(replicas)]
    failures = []
    for round_number in range(ROUNDS):
        product = await identity.product(replicas[0].org, f"New {round_number}")
        replica = round_number % 2
        status, body = await add(replicas[replica], apps[replica], product["id"])
        if status != 201:
            failures.append((round_number, status, body))
    assert failures == []
    async with cursor(apps_pool) as cur:
        assert await resources_in(cur, apps) == ROUNDS


async def test_a_product_deleted_a_moment_ago_is_refused_at_once(
    replicas: tuple[Tenant, Tenant], identity: IdentityFactory, apps_products: AppsProducts, apps_pool
):
    # Every product is known to both apps services' copy and cached by both gateways first (added
    # to a first app through each), so only a read of the owner's records can refuse it.
    first = [await replica.create_app(slug=f"first-{n}") for n, replica in enumerate(replicas)]
    products = [await identity.product(replicas[0].org, f"Doomed {n}") for n in range(ROUNDS)]
    await apps_products.until_known(*products)
    for replica, app in zip(replicas, first, strict=True):
        for product in products:
            assert (await add(replica, app, product["id"]))[0] == 201
    second = [await replica.create_app(slug=f"second-{n}") for n, replica in enumerate(replicas)]
    failures = []
    for round_number, product in enumerate(products):
        await identity.delete_product(replicas[0].org, product["id"])
        replica = round_number % 2
        status, body = await add(replicas[replica], second[replica], product["id"])
        if (status, body.get("details")) != (422, REFUSED):
            failures.append((round_number, status, body))
    assert failures == []
    async with cursor(apps_pool) as cur:
        assert await resources_in(cur, second) == 0

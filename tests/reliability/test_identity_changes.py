"""Changes that take access away are honoured by every gateway replica within two seconds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from libs.common.db import transaction
from tests.factories import IdentityFactory

RUNS = "/api/v1/agent-simulation/runs"
DEADLINE_SECONDS = 2.0


async def seconds_until_refused(replicas, send: Callable[..., Awaitable], change: Callable[[], Awaitable], status: int):
    """Warm every replica's caches, make the change, then poll until each replica answers `status`."""
    for replica in replicas:
        assert (await send(replica)).status != status
    await change()
    changed_at = time.monotonic()
    refused_after: dict[int, float] = {}
    while len(refused_after) < len(replicas) and time.monotonic() - changed_at < 3 * DEADLINE_SECONDS:
        for index, replica in enumerate(replicas):
            if index not in refused_after and (await send(replica)).status == status:
                refused_after[index] = time.monotonic() - changed_at
        await asyncio.sleep(0.05)
    assert sorted(refused_after) == list(range(len(replicas))), refused_after
    return max(refused_after.values())


async def sql(identity: IdentityFactory, statement: str, params: tuple) -> None:
    async with transaction(identity.pool) as cur:
        await cur.execute(statement, params)


async def test_a_removed_membership_is_refused_everywhere(stack, identity: IdentityFactory):
    org = await identity.organization()
    user = await identity.user(org)
    token, cookie = identity.bearer(user, org), await identity.session(user, org)
    replica = await stack.start_gateway()
    try:

        async def send(gateway):
            return await gateway.get(RUNS, headers={"Authorization": f"Bearer {token}"})

        async def send_with_session(gateway):
            return await gateway.get(RUNS, cookies={"app-auth.session_token": cookie})

        for gateway in (stack.gateway, replica):
            assert (await send_with_session(gateway)).status == 200
        assert (
            await seconds_until_refused(
                (stack.gateway, replica),
                send,
                lambda: sql(identity, "DELETE FROM memberships WHERE user_id = %s", (user,)),
                401,
            )
            < DEADLINE_SECONDS
        )
        for gateway in (stack.gateway, replica):
            assert (await send_with_session(gateway)).status == 401
    finally:
        await replica.close()


async def test_a_downgraded_role_loses_its_write_scopes_everywhere(stack, identity: IdentityFactory):
    org = await identity.organization()
    user = await identity.user(org, role="owner")
    token = identity.bearer(user, org)
    replica = await stack.start_gateway()
    try:

        async def send(gateway):
            response = await gateway.post("/api/v1/apps", json={}, headers={"Authorization": f"Bearer {token}"})
            if response.status == 403:  # else 422: allowed, and the empty body refused
                assert (await response.json())["details"] == {"requiredScope": "content:write"}
            return response

        assert (
            await seconds_until_refused(
                (stack.gateway, replica),
                send,
                lambda: sql(identity, "UPDATE memberships SET role = 'viewer' WHERE user_id = %s", (user,)),
                403,
            )
            < DEADLINE_SECONDS
        )
        response = await replica.get("/api/v1/apps", headers={"Authorization": f"Bearer {token}"})
        assert response.status == 200  # reads stay
    finally:
        await replica.close()


async def test_a_deleted_organization_is_refused_everywhere(stack, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org)
    replica = await stack.start_gateway()
    try:

        async def send(gateway):
            return await gateway.get(RUNS, headers={"x-api-key": key})

        assert (
            await seconds_until_refused(
                (stack.gateway, replica),
                send,
                lambda: sql(identity, "DELETE FROM organizations WHERE id = %s", (org.id,)),
                401,
            )
            < DEADLINE_SECONDS
        )
    finally:
        await replica.close()


async def test_a_deleted_product_is_not_found_everywhere(stack, identity: IdentityFactory):
    org = await identity.organization()
    product = await identity.product(org)
    key = await identity.api_key(org)
    replica = await stack.start_gateway()
    try:

        async def send(gateway):
            return await gateway.get(f"/api/v1/products/{product['id']}/personas", headers={"x-api-key": key})

        assert (
            await seconds_until_refused(
                (stack.gateway, replica),
                send,
                lambda: sql(identity, "UPDATE products SET deleted_at = now() WHERE id = %s", (product["id"],)),
                404,
            )
            < DEADLINE_SECONDS
        )
    finally:
        await replica.close()
